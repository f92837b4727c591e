func.func @sigmoid_bf16(%a: tensor<64xbf16>) {
  %g = gdn.sigmoid %a : tensor<64xbf16>
  return
}
