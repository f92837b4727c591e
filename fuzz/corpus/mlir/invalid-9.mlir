func.func @tile_store_index_count(%t: tensor<64xf32>, %m: memref<?x?xf32>, %i: index) {
  gdn.tile_store %t, %m[%i] dims [0] : tensor<64xf32>, memref<?x?xf32>
  return
}
