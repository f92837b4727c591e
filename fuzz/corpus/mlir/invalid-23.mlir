func.func @matmul_result_shape(%a: tensor<64x128xf32>, %b: tensor<64x128xf32>) {
  %r = gdn.matmul %a, %b transpose_b mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x32xf32>
  return
}
