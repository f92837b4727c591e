func.func @tri_inverse_square(%a: tensor<64x32xf32>) {
  %t = gdn.tri_inverse %a : tensor<64x32xf32>
  return
}
