// RUN: gdn-opt %s --gdn-gpu-outline | FileCheck %s
// RUN: gdn-opt %s --gdn-gpu-outline=shared-memory=20000 | FileCheck %s --check-prefix=SMEM
// RUN: not gdn-opt %s --gdn-gpu-outline=block-size=100 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: gdn-opt %s --gdn-gpu-outline | FileCheck %s --check-prefix=CARRIED

// A bufferized kernel becomes a gpu.func in gpu.module @gdn_kernels with a
// trailing scratch buffer; its tile buffers become views into the block's
// slice of it (64x64xf32 = 16384 bytes, bf16 64x128 = 16384 bytes, slots
// aligned to 256), program ids become block ids, deallocations go.

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @gdn_kernels
// CHECK: gpu.func @kernel(%{{.*}}: memref<?x?xf32>, %[[SCRATCH:.*]]: memref<?xi8>) kernel attributes {gdn.scratch_bytes_per_block = 32768 : i64, gdn.shared_bytes_per_block = 0 : i64, known_block_size = array<i32: 128, 1, 1>}
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[LINEAR:.*]] = arith.addi %[[BX]]
// CHECK: %[[BASE:.*]] = arith.muli %[[LINEAR]], %c32768
// CHECK: %[[OFF1:.*]] = arith.addi %[[BASE]], %c16384
// CHECK: memref.view %[[SCRATCH]][%[[OFF1]]][] : memref<?xi8> to memref<64x128xbf16>
// CHECK: gpu.block_id y
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: gpu.return
// CHECK-NOT: func.func @kernel
// BAD: block-size 100 is not a positive multiple of 32

// With 20000 bytes of shared memory, one 16384-byte buffer fits on chip
// (both are only read and written in place; the first in size order wins),
// the other stays in global scratch.
// SMEM: gdn.scratch_bytes_per_block = 16384 : i64, gdn.shared_bytes_per_block = 16384 : i64
// SMEM: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// SMEM: memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf32, #gpu.address_space<workgroup>>
// SMEM: memref.view %{{.*}}[%{{.*}}][] : memref<?xi8> to memref<64x128xbf16>
func.func @kernel(%m: memref<?x?xf32>) {
  %a = memref.alloc() : memref<64x64xf32>
  %b = memref.alloc() : memref<64x128xbf16>
  %p = gdn.program_id 1
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0, %c0] : memref<64x64xf32>
  memref.store %v, %m[%p, %c0] : memref<?x?xf32>
  memref.dealloc %a : memref<64x64xf32>
  memref.dealloc %b : memref<64x128xbf16>
  return
}

// A loop-carried buffer: each alloc has one fixed slot, so the next state
// (built in %next's slot) would overwrite the state the iteration was
// handed while it is still read after the update. Each iteration first
// copies the carried buffer into a slot of its own and reads that.
// CARRIED-LABEL: gpu.func @carried
// CARRIED: scf.for {{.*}} iter_args(%[[IN:.*]] = %{{.*}}) -> (memref<64x64xf32>)
// CARRIED: %[[OWN:.*]] = memref.view
// CARRIED-NEXT: memref.copy %[[IN]], %[[OWN]]
// CARRIED: %[[NEXT:.*]] = memref.view
// CARRIED: linalg.copy ins(%[[OWN]] : {{.*}}) outs(%[[NEXT]]
// CARRIED: memref.load %[[OWN]]
// CARRIED: scf.yield %[[NEXT]]
func.func @carried(%m: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<64x64xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%state = %init) -> (memref<64x64xf32>) {
    %next = memref.alloc() : memref<64x64xf32>
    linalg.copy ins(%state : memref<64x64xf32>) outs(%next : memref<64x64xf32>)
    %v = memref.load %state[%c0, %c0] : memref<64x64xf32>
    memref.store %v, %m[%i, %c0] : memref<?x?xf32>
    scf.yield %next : memref<64x64xf32>
  }
  return
}

// A schedule's prefetch=none mark goes with the kernel (read by
// gdn-gpu-prefetch-next-chunk); a kernel without it gets none.
// RUN: gdn-opt %s --gdn-gpu-outline | FileCheck %s --check-prefix=MARK
// MARK-LABEL: gpu.func @marked
// MARK-SAME: gdn.no_prefetch
// MARK-LABEL: gpu.func @unmarked
// MARK-NOT: gdn.no_prefetch
func.func @marked(%m: memref<?x?xf32>) attributes {gdn.no_prefetch} {
  return
}
func.func @unmarked(%m: memref<?x?xf32>) {
  return
}
