func.func @scale_rows(%x: tensor<64x128xf32>, %s: tensor<64xf32>) -> tensor<64x128xf32> {
  %r = gdn.scale_rows %x, %s : tensor<64x128xf32>, tensor<64xf32>
  return %r : tensor<64x128xf32>
}
