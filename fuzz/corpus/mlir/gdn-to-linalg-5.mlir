func.func @gate_linear(%a: tensor<64xf32>) -> tensor<64xf32> {
  %g = gdn.gate linear %a : tensor<64xf32>
  return %g : tensor<64xf32>
}
