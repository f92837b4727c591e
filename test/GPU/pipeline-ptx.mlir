// REQUIRES: ptxas
// The whole GPU pipeline on the project's kernels: PTX for sm_90a with
// tensor-core instructions, which ptxas accepts.
// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-pipeline | FileCheck %s
// CHECK: gpu.binary @gdn_kernels
// CHECK-SAME: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// CHECK-SAME: .target sm_90a
// CHECK-SAME: .visible .entry gdn_pool(
// CHECK-SAME: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-SAME: .visible .entry gdn_paged(
// CHECK-SAME: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
