func.func @gate_log_params(%a: tensor<64xf32>, %x: f32) {
  %g = gdn.gate log %a A_log(%x) dt_bias(%x) : tensor<64xf32>
  return
}
