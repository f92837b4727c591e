func.func @tile_store_element_type(%t: tensor<64xf32>, %m: memref<?x?xbf16>, %i: index) {
  gdn.tile_store %t, %m[%i, %i] dims [0] : tensor<64xf32>, memref<?x?xbf16>
  return
}
