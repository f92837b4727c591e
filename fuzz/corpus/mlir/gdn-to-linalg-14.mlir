func.func @paged_state(%pool: memref<?x?x128x64xf32>, %pi: memref<?xi32>, %pp: memref<?xi64>, %b: index, %n: index, %hv: index) {
  %page = gdn.page_lookup %pi, %pp[%b, %n] : memref<?xi32>, memref<?xi64>
  %m = gdn.state_load %pool[%page, %hv] : memref<?x?x128x64xf32> -> tensor<128x64xf32>
  gdn.state_store %m, %pool[%page, %hv] : tensor<128x64xf32>, memref<?x?x128x64xf32>
  return
}
