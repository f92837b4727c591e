// The project's kernel through gdn-gpu-layout-pipeline: where its tiles
// live once layouts are assigned and needless conversions removed.

// Fused: the state is loaded in the accumulator layout (each thread loads
// its own registers) before the chunk loop, carried there, read by the tensor cores from there, and
// stored from there: no conversion of the state to a blocked layout at all
// after the load. The output is computed on accumulator fragments and
// stored from them (each thread writes its own registers). The state
// update and the output's sum accumulate into the tile they add to
// (gdn-fold-matmul-accumulate): one 128 x 128 accumulator, not two.
// One warpgroup (num-warps=4; the default is gdn-run's two) keeps the layouts short.
// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-layout-pipeline="schedule=fused num-warps=4" | FileCheck %s --check-prefix=FUSED
// FUSED-DAG: #[[B2:.*]] = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// FUSED-DAG: #[[MMA:.*]] = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
// FUSED-LABEL: func.func @gdn_pool(
// FUSED:     %[[INIT:.*]] = gdn.state_load {{.*}} -> tensor<128x128xf32, #[[MMA]]>
// FUSED:     scf.for {{.*}} iter_args(%[[M:.*]] = %[[INIT]]) -> (tensor<128x128xf32, #[[MMA]]>)
// FUSED-NOT: gdn_gpu.convert_layout %[[M]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #[[B2]]>
// FUSED:     %[[M1:.*]] = gdn.matmul {{.*}} transpose_a mask none acc(%{{.*}} : tensor<128x128xf32, #[[MMA]]>) : {{.*}} -> tensor<128x128xf32, #[[MMA]]>
// FUSED:     %[[SUM:.*]] = gdn.matmul {{.*}} mask none acc(%{{.*}} : tensor<64x128xf32, #[[MMA]]>) : {{.*}} -> tensor<64x128xf32, #[[MMA]]>
// FUSED:     %[[O:.*]] = arith.mulf %[[SUM]], {{.*}} : tensor<64x128xf32, #[[MMA]]>
// FUSED:     %[[OB:.*]] = arith.truncf %[[O]] : tensor<64x128xf32, #[[MMA]]> to tensor<64x128xbf16, #[[MMA]]>
// FUSED-NEXT: gdn.tile_store %[[OB]], {{.*}} : tensor<64x128xbf16, #[[MMA]]>, memref<?x?x128xbf16>
// FUSED:     scf.yield %[[M1]] : tensor<128x128xf32, #[[MMA]]>
// FUSED-NOT: gdn_gpu.convert_layout {{.*}} -> tensor<128x128xf32, #[[B2]]>
// FUSED:     gdn.state_store {{.*}} : tensor<128x128xf32, #[[MMA]]>,
// The paged kernel's checkpoint store inside the loop, too: no conversion
// of the state out of the accumulator in any chunk.
// FUSED-LABEL: func.func @gdn_paged(
// FUSED:     scf.for {{.*}} -> (tensor<128x128xf32, #[[MMA]]>)
// FUSED-NOT: gdn_gpu.convert_layout {{.*}} : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #[[B2]]>
// FUSED:     gdn.state_store {{.*}} : tensor<128x128xf32, #[[MMA]]>,
// FUSED-NOT: gdn_gpu.convert_layout {{.*}} : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #[[B2]]>
// FUSED:     scf.yield

// Every matmul of every built-in schedule is anchored on wgmma: the count
// of matmuls with a wgmma result equals the count of matmuls.
// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-layout-pipeline=schedule=staged | FileCheck %s --check-prefix=ANCHORED
// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-layout-pipeline=schedule=split-seq | FileCheck %s --check-prefix=ANCHORED
// ANCHORED-NOT: gdn.matmul {{.*}} -> tensor<{{[0-9x]+}}xf32, #blocked
// ANCHORED:     gdn.matmul {{.*}} -> tensor<{{[0-9x]+}}xf32, #mma
// ANCHORED-NOT: gdn.matmul {{.*}} -> tensor<{{[0-9x]+}}xf32, #blocked
