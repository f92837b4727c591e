func.func @matmul_decay_unmasked(%a: tensor<64x128xf32>, %g: tensor<64xf32>) {
  %r = gdn.matmul %a, %a transpose_b mask none decay(%g : tensor<64xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return
}
