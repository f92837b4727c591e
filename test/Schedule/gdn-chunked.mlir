// The project's kernel under each built-in schedule: the kernels in launch
// order and, where they exist, the workspaces that cross global memory
// (per program and chunk slot: W, U, K, Q [64 x K], the
// intra-chunk attention [64 x 64], gamma [64]; the entering state [V x K];
// Vn [64 x V]).

// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-schedule=schedule=fused | FileCheck %s --check-prefix=FUSED
// FUSED:     func.func @gdn_pool({{.*}}gdn.grid_z = "one"
// FUSED:     func.func @gdn_paged({{.*}}gdn.grid_z = "one"
// FUSED-NOT: gdn.workspace

// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-schedule=schedule=staged | FileCheck %s --check-prefix=STAGED
// STAGED: func.func @gdn_pool__prepare(
// STAGED-SAME: memref<?x?x?x64x128xf32> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xf32> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xf32> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xf32> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x64xf32> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64xf32> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x128x128xf32> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xf32> {gdn.workspace = "chunks"})
// STAGED-SAME: gdn.grid_z = "chunks"{{.*}}gdn.step = 0
// STAGED: func.func @gdn_pool__state({{.*}}gdn.grid_z = "one"{{.*}}gdn.step = 1
// STAGED: func.func @gdn_pool__output({{.*}}gdn.grid_z = "chunks"{{.*}}gdn.step = 2
// STAGED: func.func @gdn_paged__prepare(
// STAGED: func.func @gdn_paged__state(
// STAGED: func.func @gdn_paged__output(

// staged-bf16: tiles in bf16; gamma stays f32 (the step and the output
// take exponentials of its differences; in bf16 a state's error was 8e-3).
// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-schedule=schedule=staged-bf16 | FileCheck %s --check-prefix=BF16
// BF16: func.func @gdn_pool__prepare(
// BF16-SAME: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"}
// BF16-SAME: memref<?x?x?x64xf32> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x128x128xf32> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"})

// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-schedule=schedule=split-seq | FileCheck %s --check-prefix=SPLIT
// SPLIT: func.func @gdn_pool__transition(
// SPLIT-SAME: memref<?x?x?xf32> {gdn.workspace = "segments"}, %{{.*}}: memref<?x?x?x128x128xf32> {gdn.workspace = "segments"}, %{{.*}}: memref<?x?x?x128x128xf32> {gdn.workspace = "segments"})
// SPLIT-SAME: gdn.grid_z = "segments"
// SPLIT-NOT: __combine
// SPLIT: func.func @gdn_pool__replay({{.*}}gdn.grid_z = "segments"
// SPLIT: func.func @gdn_paged__transition(
// SPLIT: func.func @gdn_paged__replay(

// split-seq replay=load stores the chunk values transition reads (W, U,
// K, gamma) except those replay prepares anyway for the outputs: K and
// gamma feed Q K^T (.) D and the output's decay, so only W and U cross,
// as with store=solve.
// RUN: gdn-opt %kernels/gdn_chunked.mlir '--gdn-schedule=schedule={split-seq replay=load intermediates=bf16}' | FileCheck %s --check-prefix=LOAD-ALL
// LOAD-ALL: func.func @gdn_pool__transition(
// LOAD-ALL-SAME: %{{.*}}: memref<?x?x?x128x128xf32> {gdn.workspace = "segments"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"})
// LOAD-ALL: func.func @gdn_pool__replay(
// LOAD-ALL-SAME: %{{.*}}: memref<?x?x?x128x128xf32> {gdn.workspace = "segments"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"})
// RUN: gdn-opt %kernels/gdn_chunked.mlir '--gdn-schedule=schedule={split-seq replay=load intermediates=bf16 store=solve}' | FileCheck %s --check-prefix=LOAD-SOLVE
// LOAD-SOLVE: func.func @gdn_pool__transition(
// LOAD-SOLVE-SAME: %{{.*}}: memref<?x?x?x128x128xf32> {gdn.workspace = "segments"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"})
// LOAD-SOLVE-SAME: gdn.schedule = "split-seq segment-chunks=16 replay=load intermediates=bf16 store=solve"
// LOAD-SOLVE: func.func @gdn_pool__replay(
// LOAD-SOLVE-SAME: %{{.*}}: memref<?x?x?x128x128xf32> {gdn.workspace = "segments"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"})
// LOAD-SOLVE-SAME: gdn.step = 1

// store=solve: only W and U (the values of the WY solve) cross from the
// prepare kernel; the serial kernel prepares K, Q, Q K^T
// and gamma again from its inputs, and none of the solve.
// RUN: gdn-opt %kernels/gdn_chunked.mlir '--gdn-schedule=schedule={staged intermediates=bf16 output=with-state store=solve}' | FileCheck %s --check-prefix=SOLVE
// SOLVE: func.func @gdn_pool__prepare(
// SOLVE-SAME: %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"})
// SOLVE-SAME: gdn.schedule = "staged intermediates=bf16 output=with-state store=solve"
// SOLVE: func.func @gdn_pool__state(
// SOLVE-SAME: %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"}, %{{.*}}: memref<?x?x?x64x128xbf16> {gdn.workspace = "chunks"})
// SOLVE:   scf.for
// SOLVE:     call @chunk_solve(
// SOLVE:     gdn.tile_load {{.*}} : memref<?x?x?x64x128xbf16> -> tensor<64x128xbf16>
// SOLVE:     gdn.tile_load {{.*}} : memref<?x?x?x64x128xbf16> -> tensor<64x128xbf16>
// SOLVE:     call @chunk_step(
// SOLVE:     call @chunk_output(
// SOLVE-NOT: func.func @gdn_pool__output

// prepare-per=head under a V-split of two: the prepare kernel runs over
// value heads (grid x) and stores W [64 x K] and the inverse Tm [64 x 64]
// per head; the serial kernel, over the programs, loads both at its head
// (the first result of gdn.program_rows, expanded), makes U from Tm and
// its own 64 rows of v, and keeps no solve once inlined; the prepare
// kernel, once inlined, reads no v.
// RUN: gdn-run --emit tile --schedule "staged intermediates=bf16 output=with-state store=solve prepare-per=head v-block=64" --seqlens 1 -o %t.vblock64.mlir
// RUN: gdn-opt %t.vblock64.mlir '--gdn-schedule=schedule={staged intermediates=bf16 output=with-state store=solve prepare-per=head v-block=64}' | FileCheck %s --check-prefix=PER-HEAD
// PER-HEAD: func.func @gdn_pool__prepare(
// PER-HEAD-SAME: %[[W:[a-z0-9]+]]: memref<?x?x?x64x128xbf16> {gdn.grid_x = "heads", gdn.workspace = "call-chunks"}, %[[TM:[a-z0-9]+]]: memref<?x?x?x64x64xbf16> {gdn.grid_x = "heads", gdn.workspace = "call-chunks"})
// PER-HEAD-SAME: gdn.grid_x = "heads", gdn.grid_z = "chunks"
// PER-HEAD-NOT: gdn.program_rows
// PER-HEAD:     %[[HEAD:.*]] = gdn.program_id 0
// The call's chunk slots: (head, 0, the sequence's first slot + the chunk's).
// PER-HEAD:     %[[BASE:.*]] = func.call @first_call_slot(
// PER-HEAD:     %[[CHUNK:.*]] = gdn.program_id 2
// PER-HEAD:     %[[SOLVED:.*]]:6 = func.call @chunk_solve(
// PER-HEAD:     %[[X:.*]] = gdn.program_id 0
// PER-HEAD:     %[[Y:.*]] = arith.constant 0 : index
// PER-HEAD:     %[[SLOT:.*]] = arith.addi %[[BASE]], %[[CHUNK]] : index
// PER-HEAD:     gdn.tile_store %{{.*}}, %[[W]][%[[X]], %[[Y]], %[[SLOT]],
// PER-HEAD:     %[[X2:.*]] = gdn.program_id 0
// PER-HEAD:     gdn.tile_store %{{.*}}, %[[TM]][%[[X2]],
// PER-HEAD: func.func @gdn_pool__state(
// PER-HEAD-SAME: %[[W:[a-z0-9]+]]: memref<?x?x?x64x128xbf16> {gdn.grid_x = "heads", gdn.workspace = "call-chunks"}, %[[TM:[a-z0-9]+]]: memref<?x?x?x64x64xbf16> {gdn.grid_x = "heads", gdn.workspace = "call-chunks"})
// PER-HEAD-NOT: gdn.grid_x = "heads", gdn.grid_z
// PER-HEAD:     %[[P:.*]] = gdn.program_id 0
// PER-HEAD:     %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %[[VB:.*]] : index
// PER-HEAD:     %[[H:.*]] = arith.divui %[[P]], %[[BLOCKS]]
// PER-HEAD:     %[[BLK:.*]] = arith.remui %[[P]], %[[BLOCKS]]
// PER-HEAD:     %[[ROW:.*]] = arith.muli %[[BLK]], %[[VB]]
// PER-HEAD:     scf.for
// PER-HEAD:       %[[WL:.*]] = gdn.tile_load %[[W]][%[[H]],
// PER-HEAD:       %[[TML:.*]] = gdn.tile_load %[[TM]][%[[H]],
// PER-HEAD:       %[[TMF:.*]] = arith.extf %[[TML]] : tensor<64x64xbf16> to tensor<64x64xf32>
// PER-HEAD:       %[[V:.*]] = gdn.tile_load %arg2[%{{.*}}, %[[H]], %[[ROW]]] {{.*}} -> tensor<64x64xbf16>
// PER-HEAD:       func.call @chunk_solve(
// PER-HEAD:       func.call @wy_values(%[[TMF]], %[[V]],
// PER-HEAD-NOT: func.func @gdn_pool__output
// RUN: gdn-opt %t.vblock64.mlir '--gdn-schedule=schedule={staged intermediates=bf16 output=with-state store=solve prepare-per=head v-block=64}' --inline --canonicalize | FileCheck %s --check-prefix=PER-HEAD-INLINED
// PER-HEAD-INLINED: func.func @gdn_pool__prepare(
// PER-HEAD-INLINED:   gdn.tri_inverse
// PER-HEAD-INLINED-NOT: gdn.tile_load %arg2[
// PER-HEAD-INLINED: func.func @gdn_pool__state(
// PER-HEAD-INLINED-NOT: gdn.tri_inverse
// PER-HEAD-INLINED: func.func @gdn_paged__prepare(

// store=products under prepare-per=head: the prepare kernel also stores the
// intra-chunk attention Q K^T (.) D per head ([64 x 64], the third
// workspace), and the serial kernel loads it: once inlined, it keeps no
// causal product of its own.
// RUN: gdn-opt %t.vblock64.mlir '--gdn-schedule=schedule={staged intermediates=bf16 output=with-state store=products prepare-per=head v-block=64}' --inline --canonicalize | FileCheck %s --check-prefix=PRODUCTS
// PRODUCTS: func.func @gdn_pool__prepare(
// PRODUCTS-SAME: memref<?x?x?x64x128xbf16> {gdn.grid_x = "heads", gdn.workspace = "call-chunks"}, %[[TM:[a-z0-9]+]]: memref<?x?x?x64x64xbf16> {gdn.grid_x = "heads", gdn.workspace = "call-chunks"}, %[[QK:[a-z0-9]+]]: memref<?x?x?x64x64xbf16> {gdn.grid_x = "heads", gdn.workspace = "call-chunks"})
// PRODUCTS:   gdn.matmul {{.*}} transpose_b mask  causal decay
// PRODUCTS:   gdn.tile_store %{{.*}}, %[[QK]][
// PRODUCTS: func.func @gdn_pool__state(
// PRODUCTS-SAME: %[[QK2:[a-z0-9]+]]: memref<?x?x?x64x64xbf16> {gdn.grid_x = "heads", gdn.workspace = "call-chunks"})
// PRODUCTS-NOT: mask  causal
// PRODUCTS:   gdn.tile_load %[[QK2]][
// PRODUCTS-NOT: mask  causal
// PRODUCTS: func.func @gdn_paged__prepare(

// After inlining, the serial kernel keeps no triangular solve.
// RUN: gdn-opt %kernels/gdn_chunked.mlir '--gdn-schedule=schedule={staged intermediates=bf16 output=with-state store=solve}' --inline --canonicalize | FileCheck %s --check-prefix=SOLVE-INLINED
// SOLVE-INLINED: func.func @gdn_pool__prepare(
// SOLVE-INLINED:   gdn.tri_inverse
// SOLVE-INLINED: func.func @gdn_pool__state(
// SOLVE-INLINED-NOT: gdn.tri_inverse
// SOLVE-INLINED: func.func @gdn_paged__prepare(
