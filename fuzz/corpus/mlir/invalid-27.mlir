func.func @matmul_decay_length(%a: tensor<64x128xf32>, %g: tensor<32xf32>) {
  %r = gdn.matmul %a, %a transpose_b mask causal decay(%g : tensor<32xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return
}
