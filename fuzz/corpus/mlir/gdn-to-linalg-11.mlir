func.func @matmul_transpose_a(%v: tensor<64x128xf32>, %k: tensor<64x128xf32>) -> tensor<128x128xf32> {
  %a = gdn.matmul %v, %k transpose_a mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  return %a : tensor<128x128xf32>
}
