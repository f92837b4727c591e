func.func @state_pool_dtype(%pool: memref<?x?x128x128xbf16>, %i: index) {
  %m = gdn.state_load %pool[%i, %i] : memref<?x?x128x128xbf16> -> tensor<128x128xf32>
  return
}
