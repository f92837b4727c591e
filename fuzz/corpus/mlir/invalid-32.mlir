func.func @state_pool_mismatch(%pool: memref<?x?x128x64xf32>, %i: index) {
  %m = gdn.state_load %pool[%i, %i] : memref<?x?x128x64xf32> -> tensor<128x128xf32>
  return
}
