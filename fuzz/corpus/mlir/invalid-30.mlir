func.func @page_lookup_type(%pi: memref<?xf32>, %pp: memref<?xi32>, %i: index) {
  %p = gdn.page_lookup %pi, %pp[%i, %i] : memref<?xf32>, memref<?xi32>
  return
}
