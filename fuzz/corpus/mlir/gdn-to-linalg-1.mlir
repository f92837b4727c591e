func.func @tile_store_masked(%v: tensor<64x128xf32>, %m: memref<?x?x128xf32>, %t: index, %h: index, %n: index) {
  %c0 = arith.constant 0 : index
  gdn.tile_store %v, %m[%t, %h, %c0] dims [0, 2] rows %n : tensor<64x128xf32>, memref<?x?x128xf32>
  return
}
