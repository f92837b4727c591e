func.func @gate_raw_params(%a: tensor<64xf32>, %x: f32) {
  %g = gdn.gate raw %a A_log(%x) : tensor<64xf32>
  return
}
