func.func @state_head_size(%pool: memref<?x?x96x128xf32>, %i: index) {
  %m = gdn.state_load %pool[%i, %i] : memref<?x?x96x128xf32> -> tensor<96x128xf32>
  return
}
