func.func @tile_load_masked(%m: memref<?x?x128xbf16>, %t: index, %h: index, %n: index) -> tensor<64x128xbf16> {
  %c0 = arith.constant 0 : index
  %r = gdn.tile_load %m[%t, %h, %c0] dims [0, 2] rows %n : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  return %r : tensor<64x128xbf16>
}
