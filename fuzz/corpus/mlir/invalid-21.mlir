func.func @matmul_element_types(%a: tensor<64x128xf32>, %b: tensor<64x128xbf16>) {
  %r = gdn.matmul %a, %b transpose_b mask none : tensor<64x128xf32>, tensor<64x128xbf16> -> tensor<64x64xf32>
  return
}
