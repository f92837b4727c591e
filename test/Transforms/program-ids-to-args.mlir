// RUN: gdn-opt %s --gdn-program-ids-to-args -split-input-file | FileCheck %s

// Program ids become three trailing index arguments; axis N is argument N.
// CHECK-LABEL: func.func @kernel(
// CHECK-SAME: %[[X:.*]]: memref<?xf32>, %[[P0:.*]]: index, %[[P1:.*]]: index, %[[P2:.*]]: index)
// CHECK-NOT: gdn.program_id
// CHECK: memref.store %{{.*}}, %[[X]][%[[P1]]]
// CHECK: memref.store %{{.*}}, %[[X]][%[[P0]]]
func.func @kernel(%x: memref<?xf32>) {
  %b = gdn.program_id 1
  %h = gdn.program_id 0
  %c = arith.constant 1.0 : f32
  memref.store %c, %x[%b] : memref<?xf32>
  memref.store %c, %x[%h] : memref<?xf32>
  return
}

// -----

// A function without program ids keeps its signature.
// CHECK-LABEL: func.func @helper(%{{.*}}: f32) -> f32
func.func @helper(%x: f32) -> f32 {
  return %x : f32
}
