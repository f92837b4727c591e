// REQUIRES: ptxas
// gdn-gpu-pipeline, the whole register-tile back end, on the project's
// kernel file (K = V = 128, bf16): PTX for sm_90a with warpgroup MMA in a
// gpu.binary, with gdn-run's defaults (bf16 operands, two warpgroups, the
// next-chunk prefetch) and with each option changed.
// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-pipeline | FileCheck %s
// CHECK: gpu.binary @gdn_kernels
// CHECK-SAME: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// CHECK-SAME: .target sm_90a
// CHECK-SAME: .visible .entry gdn_pool(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: prefetch.L2
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k16.f32.bf16.bf16
// CHECK-SAME: .visible .entry gdn_paged(

// Nothing on stderr: no pass reports an error it then ignores.
// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-pipeline 2>&1 >/dev/null | count 0

// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-pipeline="schedule=staged mma-precision=tf32 warpgroups=1 prefetch=false" | FileCheck %s --check-prefix=OPTS --implicit-check-not=prefetch.L2
// OPTS: gpu.binary @gdn_kernels
// OPTS-SAME: .maxntid 128, 1, 1
// OPTS-SAME: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k8.f32.tf32.tf32

// Bad option values are refused with the option named.
// RUN: not gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-pipeline=warpgroups=3 2>&1 | FileCheck %s --check-prefix=BADWG
// BADWG: gdn-gpu-pipeline: warpgroups per block must be 1 or 2, got 3
// RUN: not gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-pipeline=mma-precision=fp8 2>&1 | FileCheck %s --check-prefix=BADMMA
// BADMMA: gdn-gpu-pipeline: tensor-core precision (mma) must be auto, bf16, f16 or tf32, got 'fp8'
