func.func @tile_load_dim_range(%m: memref<?x?x128xbf16>, %i: index) {
  %t = gdn.tile_load %m[%i, %i, %i] dims [0, 3] : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  return
}
