func.func @matmul_contraction(%a: tensor<64x128xf32>, %b: tensor<64x128xf32>) {
  %r = gdn.matmul %a, %b mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
  return
}
