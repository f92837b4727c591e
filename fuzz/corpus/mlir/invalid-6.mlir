func.func @tile_load_element_type(%m: memref<?x?x128xbf16>, %i: index) {
  %t = gdn.tile_load %m[%i, %i, %i] dims [0, 2] : memref<?x?x128xbf16> -> tensor<64x128xf32>
  return
}
