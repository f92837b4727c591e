func.func @tile_load_dim_twice(%m: memref<?x?x128xbf16>, %i: index) {
  %t = gdn.tile_load %m[%i, %i, %i] dims [2, 2] : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  return
}
