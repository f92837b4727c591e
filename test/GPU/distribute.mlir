// RUN: gdn-opt %s --pass-pipeline="builtin.module(gpu.module(gdn-gpu-distribute),canonicalize)" | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhsT = affine_map<(d0, d1, d2) -> (d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {gpu.container_module} {
gpu.module @k {
  // An elementwise op: 64 rounds over the 128 threads (a constant trip
  // count, no bounds check: 8192 iterations), then a barrier.
  // CHECK-LABEL: gpu.func @elementwise
  // CHECK: %[[TID:.*]] = gpu.thread_id x
  // CHECK: scf.for %[[ROUND:.*]] = %c0 to %c64 step %c1
  // CHECK: %[[BASE:.*]] = arith.muli %[[ROUND]], %c128
  // CHECK: %[[LIN:.*]] = arith.addi %[[BASE]], %[[TID]]
  // CHECK-NOT: scf.if
  // CHECK: arith.remui %[[LIN]], %c128
  // CHECK: arith.divui %[[LIN]], %c128
  // CHECK: memref.load
  // CHECK: arith.addf
  // CHECK: memref.store
  // CHECK: gpu.barrier
  // CHECK-NOT: linalg.generic
  gpu.func @elementwise(%a: memref<64x128xf32>, %b: memref<64x128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x128xf32>) outs(%b : memref<64x128xf32>) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %x : f32
      linalg.yield %s : f32
    }
    gpu.return
  }

  // A tagged contraction A B^T runs on tensor cores: one 16x8 C tile per
  // warp at a time, k in steps of 8, TF32 with fp32 accumulation.
  // CHECK-LABEL: gpu.func @matmul
  // CHECK: %[[WARP:.*]] = arith.divui %{{.*}}, %c32
  // CHECK: scf.for %{{.*}} = %[[WARP]] to %c16 step %c4
  // CHECK: scf.for %{{.*}} = %c0 to %c128 step %c8 iter_args(%{{.*}} = %{{.*}}) -> (vector<2x2xf32>)
  // CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
  // CHECK: vector.extract
  // CHECK: memref.store
  // CHECK: gpu.barrier
  gpu.func @matmul(%a: memref<64x128xf32>, %b: memref<32x128xbf16>, %c: memref<64x32xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    linalg.generic {indexing_maps = [#lhs, #rhsT, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<64x128xf32>, memref<32x128xbf16>) outs(%c : memref<64x32xf32>) attrs = {gdn.contraction} {
    ^bb0(%x: f32, %y: bf16, %acc: f32):
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %x, %yf : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    gpu.return
  }

  // A parallel store loop and a copy are spread over threads; a scalar loop
  // that stores (a cumulative sum) stores from thread 0 only.
  // CHECK-LABEL: gpu.func @stores
  // CHECK: %[[TID:.*]] = gpu.thread_id x
  // CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[TID]], %c0
  // CHECK: scf.for
  // CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : index
  // CHECK: scf.if
  // CHECK: memref.store
  // CHECK: gpu.barrier
  // CHECK: arith.cmpi ult, %[[TID]], %c64
  // CHECK: memref.store
  // CHECK: gpu.barrier
  // CHECK: scf.for
  // CHECK: scf.if %[[LEADER]]
  // CHECK: memref.store
  // CHECK: gpu.barrier
  gpu.func @stores(%a: memref<64xf32>, %b: memref<64xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    scf.forall (%i) in (%n) {
      %v = memref.load %a[%i] : memref<64xf32>
      memref.store %v, %b[%i] : memref<64xf32>
    }
    memref.copy %a, %b : memref<64xf32> to memref<64xf32>
    %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %a[%i] : memref<64xf32>
      %t = arith.addf %acc, %v : f32
      memref.store %t, %b[%i] : memref<64xf32>
      scf.yield %t : f32
    }
    gpu.return
  }

  // A scalar store at the top level (split-seq stores a segment's decay)
  // is guarded on its own; the barrier after it is reached by every thread,
  // not inside the guard (a barrier only thread 0 reaches hangs the block).
  // CHECK-LABEL: gpu.func @top_level_store
  // CHECK: %[[TID:.*]] = gpu.thread_id x
  // CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[TID]], %c0
  // CHECK: scf.if %[[LEADER]] {
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.barrier
  // CHECK-NEXT: gpu.return
  gpu.func @top_level_store(%a: memref<?xf32>, %x: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    memref.store %x, %a[%c0] : memref<?xf32>
    gpu.return
  }
}
}
