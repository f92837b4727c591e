func.func @gate_raw(%a: tensor<64xf32>, %alog: f32, %dtb: f32) -> tensor<64xf32> {
  %g = gdn.gate raw %a A_log(%alog) dt_bias(%dtb) : tensor<64xf32>
  return %g : tensor<64xf32>
}
