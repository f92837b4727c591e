func.func @tile_load_too_wide(%m: memref<?x?x64xbf16>, %i: index) {
  %t = gdn.tile_load %m[%i, %i, %i] dims [0, 2] : memref<?x?x64xbf16> -> tensor<64x128xbf16>
  return
}
