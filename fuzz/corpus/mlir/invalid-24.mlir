func.func @matmul_result_bf16(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>) {
  %r = gdn.matmul %a, %b transpose_b mask none : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
  return
}
