// RUN: gdn-opt %s --gdn-gpu-pipeline-loads | FileCheck %s
// RUN: gdn-opt %s --gdn-gpu-pipeline-loads --gdn-gpu-lower-tiles=mma-precision=bf16 | FileCheck %s --check-prefix=LOWER
// RUN: gdn-opt %s --gdn-gpu-tiles-to-ptx=mma-precision=bf16 | FileCheck %s --check-prefix=PTX
// A kernel without gdn.load_stages keeps its loads.
// RUN: sed -e 's/, gdn.load_stages = 2 : i64//' %s | gdn-opt --gdn-gpu-pipeline-loads | FileCheck %s --check-prefix=OFF

// The q tile of every chunk comes through a ring of two slots by TMA: the
// kernel gets a tensor-map parameter after its scratch buffer (and says
// which argument and box it describes), thread 0 fills slots 0 and 1 with
// the first two chunks before the loop, and each chunk waits for its slot,
// reads it (ragged rows as zero), meets the block and refills the slot two
// chunks ahead. The gate vector (rank 1) stays a plain load.
// CHECK-LABEL: gpu.func @ring(
// CHECK-SAME:    %[[Q:.*]]: memref<?x?x128xbf16>, %{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?x?x128xbf16>, %[[LEN:.*]]: index, %[[H:.*]]: index, %[[LO:.*]]: index, %[[HI:.*]]: index, %{{.*}}: memref<?xi8>, %[[MAP:.*]]: !llvm.ptr)
// CHECK-SAME:    gdn.tensor_maps = [{box = array<i64: 64, 1, 64>, source = 0 : i64, swizzle = 128 : i64}]
// CHECK-NEXT:  gdn_gpu.load_ring 0 stages 2 slot_bytes 16384
// CHECK:       scf.if
// CHECK-NEXT:    gdn_gpu.ring_expect 0 slot %{{.*}} bytes 16384
// CHECK:         gdn_gpu.tma_load %[[MAP]][%{{.*}}, %[[H]], %{{.*}}] ring 0 slot %{{.*}} offset 0 : !llvm.ptr
// CHECK:         gdn_gpu.tma_load %[[MAP]][%{{.*}}, %[[H]], %{{.*}}] ring 0 slot %{{.*}} offset 8192 : !llvm.ptr
// CHECK:       scf.if
// CHECK:         gdn_gpu.ring_expect 0 slot
// CHECK:       scf.for %[[C:.*]] = %[[LO]] to %[[HI]]
// CHECK:         %[[N:.*]] = arith.minui
// CHECK:         %[[I:.*]] = arith.subi %[[C]], %[[LO]]
// CHECK:         %[[SLOT:.*]] = arith.remui
// CHECK:         %[[PHASE:.*]] = arith.remui
// CHECK-NEXT:    gdn_gpu.ring_wait 0 slot %[[SLOT]] phase %[[PHASE]]
// CHECK-NEXT:    %[[X:.*]] = gdn_gpu.ring_read 0 slot %[[SLOT]] offset 0 rows %[[N]] : tensor<64x128xbf16, #blocked>
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.if
// CHECK-NEXT:      gdn_gpu.ring_expect 0 slot %[[SLOT]] bytes 16384
// CHECK:           gdn_gpu.tma_load %[[MAP]]{{.*}} ring 0 slot %[[SLOT]] offset 0
// CHECK:           gdn_gpu.tma_load %[[MAP]]{{.*}} ring 0 slot %[[SLOT]] offset 8192
// CHECK:         }
// CHECK:         gdn.tile_load %{{.*}} dims [0] rows %[[N]] : memref<?x?xf32>
// CHECK:         arith.addf %{{.*}}, %[[X]]
// CHECK-NOT:   gdn.tile_load %[[Q]]

// Two slots of 16 KiB and a KiB for their barriers.
// LOWER-LABEL: gpu.func @ring(
// LOWER-SAME:  gdn.shared_bytes_per_block = 33792
// LOWER:       nvvm.mbarrier.init
// LOWER:       nvvm.fence.mbarrier.init
// LOWER:       nvvm.mbarrier.arrive.expect_tx
// LOWER:       nvvm.cp.async.bulk.tensor.shared.cluster.global
// LOWER:       scf.for
// LOWER:       nvvm.mbarrier.try_wait.parity
// LOWER:       vector.load {{.*}} : memref<{{.*}}xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>

// The tensor map arrives by value in the parameter space, and TMA reads it
// through its generic address.
// PTX: .param .align 64 .b8 ring_param_{{[0-9]+}}[128]
// PTX: cvta.param.u64
// PTX: mbarrier.init.shared.b64
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity.shared.b64

// OFF-LABEL: gpu.func @ring(
// OFF-NOT:   gdn.tensor_maps
// OFF-NOT:   gdn_gpu.{{load_ring|ring_|tma_load}}
// OFF:       gdn.tile_load %arg0

#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @ring(%q: memref<?x?x128xbf16>, %g: memref<?x?xf32>,
                 %o: memref<?x?x128xbf16>, %len: index, %h: index,
                 %lo: index, %chunks: index, %scratch: memref<?xi8>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>, gdn.load_stages = 2 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %init = arith.constant dense<0.0> : tensor<64x128xbf16, #blocked>
    %r = scf.for %c = %lo to %chunks step %c1 iter_args(%acc = %init) -> (tensor<64x128xbf16, #blocked>) {
      %t0 = arith.muli %c, %c64 : index
      %left = arith.subi %len, %t0 : index
      %n = arith.minui %left, %c64 : index
      %x = gdn.tile_load %q[%t0, %h, %c0] dims [0, 2] rows %n : memref<?x?x128xbf16> -> tensor<64x128xbf16, #blocked>
      %gate = gdn.tile_load %g[%t0, %h] dims [0] rows %n : memref<?x?xf32> -> tensor<64xf32, #row>
      %s1 = arith.addf %acc, %x : tensor<64x128xbf16, #blocked>
      scf.yield %s1 : tensor<64x128xbf16, #blocked>
    }
    gdn.tile_store %r, %o[%c0, %h, %c0] dims [0, 2] : tensor<64x128xbf16, #blocked>, memref<?x?x128xbf16>
    gpu.return
  }
}
}
