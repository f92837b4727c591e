func.func @kernel(%x: memref<?xf32>) {
  %b = gdn.program_id 1
  %h = gdn.program_id 0
  %c = arith.constant 1.0 : f32
  memref.store %c, %x[%b] : memref<?xf32>
  memref.store %c, %x[%h] : memref<?xf32>
  return
}
