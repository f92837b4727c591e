func.func @tile_load_dynamic_tile(%m: memref<?x?x128xbf16>, %i: index) {
  %t = gdn.tile_load %m[%i, %i, %i] dims [0, 2] : memref<?x?x128xbf16> -> tensor<?x128xbf16>
  return
}
