func.func @matmul_strict_decay(%k: tensor<64x128xbf16>, %g: tensor<64xf32>) -> tensor<64x64xf32> {
  %a = gdn.matmul %k, %k transpose_b mask strict decay(%g : tensor<64xf32>) : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xf32>
  return %a : tensor<64x64xf32>
}
