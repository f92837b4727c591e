func.func @mask_rows_type(%t: tensor<64xf32>, %n: index) {
  %m = gdn.mask_rows %t, %n : memref<64xf32>
  return
}
