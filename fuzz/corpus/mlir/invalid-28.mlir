func.func @matmul_unknown_mask(%a: tensor<64x128xf32>) {
  %r = gdn.matmul %a, %a transpose_b mask upper : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return
}
