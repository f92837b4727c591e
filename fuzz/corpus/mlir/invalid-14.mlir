func.func @gate_unknown_domain(%a: tensor<64xf32>) {
  %g = gdn.gate sigmoid %a : tensor<64xf32>
  return
}
