func.func @l2norm_vector(%x: tensor<64xf32>) {
  %n = gdn.l2norm %x : tensor<64xf32>
  return
}
