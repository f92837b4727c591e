func.func @tile_load_rank3(%m: memref<?x?x128xbf16>, %i: index) {
  %t = gdn.tile_load %m[%i, %i, %i] dims [0, 1, 2] : memref<?x?x128xbf16> -> tensor<4x4x128xbf16>
  return
}
