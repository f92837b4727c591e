func.func @gdn_paged(%g: tensor<64xf32>) {
  %x = gdn.cumsum %g : tensor<64xf32>
