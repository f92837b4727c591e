func.func @tile_load_index_count(%m: memref<?x?x128xbf16>, %i: index) {
  %t = gdn.tile_load %m[%i, %i] dims [0, 2] : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  return
}
