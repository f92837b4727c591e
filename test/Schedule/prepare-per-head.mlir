// staged prepare-per=head on a small scan: the inverse (from the WY-like
// solve, the same for every program of a head) is made by a kernel over
// heads and stored per head; the later kernels load it at their head
// (program / 2) and apply it to their own rows of x (row (program mod 2) x
// 64). The entering-state workspace of output=separate stays per program.
// RUN: gdn-opt %S/Inputs/rows-solve.mlir '--gdn-schedule=schedule={staged store=solve prepare-per=head}' | FileCheck %s
// CHECK-LABEL: func.func @scan__prepare(
// CHECK-SAME:  %[[INV:[a-z0-9]+]]: memref<?x?x?x64x64xf32> {gdn.grid_x = "heads", gdn.workspace = "chunks"}, %[[M:[a-z0-9]+]]: memref<?x?x?x64x64xf32> {gdn.workspace = "chunks"})
// CHECK-SAME:  gdn.grid_x = "heads", gdn.grid_z = "chunks"
// CHECK-NOT:   gdn.program_rows
// CHECK:       gdn.program_id 0
// CHECK-NEXT:  %[[HEAD:.*]] = gdn.program_id 0
// CHECK:       gdn.state_load %{{.*}}[%{{.*}}, %[[HEAD]]]
// CHECK:       %[[T:.*]] = gdn.tri_inverse
// CHECK:       %[[X:.*]] = gdn.program_id 0
// CHECK:       gdn.tile_store %[[T]], %[[INV]][%[[X]],
// CHECK-NOT:   gdn.tile_store
// CHECK-LABEL: func.func @scan__state(
// CHECK-SAME:  gdn.grid_z = "one"
// CHECK:       %[[P:.*]] = gdn.program_id 0
// CHECK:       %[[BLOCKS:.*]] = arith.ceildivui %c128, %c64
// CHECK:       %[[H:.*]] = arith.divui %[[P]], %[[BLOCKS]]
// CHECK:       %[[BLK:.*]] = arith.remui %[[P]], %[[BLOCKS]]
// CHECK:       %[[ROW:.*]] = arith.muli %[[BLK]], %c64
// CHECK:       scf.for
// CHECK:         %[[LOADED:.*]] = gdn.tile_load %[[INV]][%[[H]],
// CHECK:         %[[XT:.*]] = gdn.tile_load %arg1[%{{.*}}, %[[H]], %[[ROW]]]
// CHECK:         gdn.matmul %[[LOADED]], %[[XT]]
// CHECK:         %[[P2:.*]] = gdn.program_id 0
// CHECK:         gdn.tile_store %{{.*}}, %[[M]][%[[P2]],
// CHECK-LABEL: func.func @scan__output(
// CHECK:         gdn.tile_load %[[INV]][%{{.*}},

// Once inlined and canonicalised, only the prepare kernel solves.
// RUN: gdn-opt %S/Inputs/rows-solve.mlir '--gdn-schedule=schedule={staged store=solve prepare-per=head}' --canonicalize | FileCheck %s --check-prefix=DEAD
// DEAD-LABEL: func.func @scan__prepare(
// DEAD:         gdn.tri_inverse
// DEAD-NOT:     gdn.tile_load %arg1
// DEAD-LABEL: func.func @scan__state(
// DEAD-NOT:     gdn.tri_inverse
// DEAD-LABEL: func.func @scan__output(
// DEAD-NOT:     gdn.tri_inverse

// With nothing from a solve to share, the schedule says so.
// RUN: sed -e 's/%inv = gdn.tri_inverse %at/%inv = arith.negf %at/' %S/Inputs/rows-solve.mlir > %t.nosolve.mlir
// RUN: not gdn-opt %t.nosolve.mlir '--gdn-schedule=schedule={staged store=solve prepare-per=head}' 2>&1 | FileCheck %s --check-prefix=NOTHING
// NOTHING: error: 'gdn.chunk_scan' op prepares nothing from the WY solve that does not read the program's V rows; schedule 'staged store=solve prepare-per=head' (prepare-per=head) has nothing to share
