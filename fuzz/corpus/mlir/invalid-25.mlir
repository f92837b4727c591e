func.func @matmul_mask_square(%a: tensor<64x128xf32>, %m: tensor<128x128xf32>) {
  %r = gdn.matmul %a, %m mask causal : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  return
}
