func.func @gate_matrix(%a: tensor<64x2xf32>) {
  %g = gdn.gate log %a : tensor<64x2xf32>
  return
}
