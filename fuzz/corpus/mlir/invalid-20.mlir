func.func @scale_rows_length(%x: tensor<64x128xf32>, %s: tensor<32xf32>) {
  %r = gdn.scale_rows %x, %s : tensor<64x128xf32>, tensor<32xf32>
  return
}
