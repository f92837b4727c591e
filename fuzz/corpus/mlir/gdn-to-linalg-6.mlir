func.func @sigmoid(%a: tensor<64xf32>) -> tensor<64xf32> {
  %g = gdn.sigmoid %a : tensor<64xf32>
  return %g : tensor<64xf32>
}
