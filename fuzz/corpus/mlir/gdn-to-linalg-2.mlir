func.func @mask_rows(%v: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %r = gdn.mask_rows %v, %n : tensor<64xf32>
  return %r : tensor<64xf32>
}
