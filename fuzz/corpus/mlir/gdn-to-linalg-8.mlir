func.func @l2norm(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %n = gdn.l2norm %x : tensor<64x128xf32>
  return %n : tensor<64x128xf32>
}
