func.func @gate_log(%a: tensor<64xf32>) -> tensor<64xf32> {
  %g = gdn.gate log %a : tensor<64xf32>
  return %g : tensor<64xf32>
}
