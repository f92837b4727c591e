func.func @state_store_head_size(%m: tensor<128x32xf32>, %pool: memref<?x?x128x32xf32>, %i: index) {
  gdn.state_store %m, %pool[%i, %i] : tensor<128x32xf32>, memref<?x?x128x32xf32>
  return
}
