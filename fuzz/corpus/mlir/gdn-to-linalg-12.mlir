func.func @matmul_causal(%q: tensor<64x128xf32>, %k: tensor<64x128xf32>) -> tensor<64x64xf32> {
  %a = gdn.matmul %q, %k transpose_b mask causal : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return %a : tensor<64x64xf32>
}
