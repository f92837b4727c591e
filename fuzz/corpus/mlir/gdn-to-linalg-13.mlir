func.func @tri_inverse(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %t = gdn.tri_inverse %a : tensor<64x64xf32>
  return %t : tensor<64x64xf32>
}
