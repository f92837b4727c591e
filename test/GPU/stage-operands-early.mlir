// RUN: gdn-opt %s --gdn-gpu-stage-operands-early=mma-precision=bf16 | FileCheck %s
// RUN: gdn-opt %s --gdn-gpu-stage-operands-early="mma-precision=bf16 shared-budget=0" | FileCheck %s --check-prefix=BUDGET
// RUN: not gdn-opt %s --gdn-gpu-stage-operands-early=mma-precision=fp8 2>&1 | FileCheck %s --check-prefix=BADPREC

// BADPREC: gdn-gpu-stage-operands-early: mma-precision must be auto, bf16, f16 or tf32, got 'fp8'

#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#a = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#b = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
module attributes {gpu.container_module} {
gpu.module @k {
  // `kd` (a scaling of k that only feeds a staging) is computed and staged
  // right after k is loaded, not just before the second matmul: its
  // registers are free during the first one. The loads (memory effects),
  // the matmuls and the accumulator chain keep their order.
  // CHECK-LABEL: gpu.func @chunk_loop
  // CHECK: scf.for
  // CHECK-NEXT: %[[K:.*]] = gdn.tile_load %arg0
  // CHECK-NEXT: %[[KD:.*]] = arith.mulf %[[K]], %{{.*}} : tensor<64x128xf32, #blocked>
  // CHECK-NEXT: %[[KDB:.*]] = gdn_gpu.convert_layout %[[KD]] : {{.*}} -> tensor<64x128xf32, #{{.*}}>
  // CHECK-NEXT: %[[KB:.*]] = gdn_gpu.convert_layout %[[K]] : {{.*}} -> tensor<64x128xf32, #{{.*}}>
  // CHECK-NEXT: %[[Q:.*]] = gdn.tile_load %arg1
  // CHECK-NEXT: %[[QA:.*]] = gdn_gpu.convert_layout %[[Q]] : {{.*}} -> tensor<64x128xf32, #{{.*}}>
  // CHECK-NEXT: %[[S1:.*]] = gdn.matmul %[[QA]], %[[KB]]
  // CHECK-NEXT: %[[X:.*]] = arith.addf %{{.*}}, %[[S1]]
  // CHECK-NEXT: %[[S2:.*]] = gdn.matmul %[[QA]], %[[KDB]]
  // CHECK-NEXT: arith.addf %[[X]], %[[S2]]
  //
  // Without room for kd's buffer beside the others, kd and its staging stay
  // where they were (the moves that cost no shared memory are kept).
  // BUDGET-LABEL: gpu.func @chunk_loop
  // BUDGET: %[[KD:.*]] = arith.mulf
  // BUDGET-NEXT: %[[S1:.*]] = gdn.matmul
  // BUDGET-NEXT: arith.addf %{{.*}}, %[[S1]]
  // BUDGET-NEXT: gdn_gpu.convert_layout %[[KD]]
  // BUDGET-NEXT: gdn.matmul
  gpu.func @chunk_loop(%km: memref<64x128xf32>, %qm: memref<64x128xf32>,
                       %out: memref<64x64xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %two = arith.constant dense<2.0> : tensor<64x128xf32, #blocked>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) {
      %k = gdn.tile_load %km[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
      %q = gdn.tile_load %qm[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
      %qa = gdn_gpu.convert_layout %q : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #a>
      %kb = gdn_gpu.convert_layout %k : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #b>
      %kd = arith.mulf %k, %two : tensor<64x128xf32, #blocked>
      %s1 = gdn.matmul %qa, %kb transpose_b mask none
          : tensor<64x128xf32, #a>, tensor<64x128xf32, #b> -> tensor<64x64xf32, #mma>
      %x = arith.addf %acc, %s1 : tensor<64x64xf32, #mma>
      %kdb = gdn_gpu.convert_layout %kd : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #b>
      %s2 = gdn.matmul %qa, %kdb transpose_b mask none
          : tensor<64x128xf32, #a>, tensor<64x128xf32, #b> -> tensor<64x64xf32, #mma>
      %y = arith.addf %x, %s2 : tensor<64x64xf32, #mma>
      scf.yield %y : tensor<64x64xf32, #mma>
    }
    %rb = gdn_gpu.convert_layout %r : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    gdn.tile_store %rb, %out[%c0, %c0] dims [0, 1] : tensor<64x64xf32, #blocked>, memref<64x64xf32>
    gpu.return
  }

  // A staging's chain moves as one run below its last outside input: the
  // product of two staged operands waits for %u's load instead of rising
  // to its own operands and holding its registers across that load, and
  // the run moves above the unrelated load of %x.
  // CHECK-LABEL: gpu.func @chain_as_one
  // CHECK: %[[U:.*]] = gdn.tile_load %arg1
  // CHECK-NEXT: %[[UC:.*]] = gdn_gpu.convert_layout %[[U]]
  // CHECK-NEXT: %[[P:.*]] = gdn.matmul
  // CHECK-NEXT: %[[D:.*]] = arith.subf %[[UC]], %[[P]]
  // CHECK-NEXT: gdn_gpu.convert_layout %[[D]]
  // CHECK-NEXT: gdn.tile_load %arg3
  gpu.func @chain_as_one(%am: memref<64x128xf32>, %um: memref<64x64xf32>,
                         %out: memref<64x128xf32>, %xm: memref<64x128xf32>) kernel {
    %c0 = arith.constant 0 : index
    %a = gdn.tile_load %am[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
    %aa = gdn_gpu.convert_layout %a : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #a>
    %ab = gdn_gpu.convert_layout %a : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #b>
    %u = gdn.tile_load %um[%c0, %c0] dims [0, 1] : memref<64x64xf32> -> tensor<64x64xf32, #blocked>
    %uc = gdn_gpu.convert_layout %u : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
    %x = gdn.tile_load %xm[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
    gdn.tile_store %x, %out[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    %p = gdn.matmul %aa, %ab transpose_b mask none
        : tensor<64x128xf32, #a>, tensor<64x128xf32, #b> -> tensor<64x64xf32, #mma>
    %d = arith.subf %uc, %p : tensor<64x64xf32, #mma>
    %ds = gdn_gpu.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #a>
    %o = gdn.matmul %ds, %ab mask none
        : tensor<64x64xf32, #a>, tensor<64x128xf32, #b> -> tensor<64x128xf32, #mma>
    %ob = gdn_gpu.convert_layout %o : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #blocked>
    gdn.tile_store %ob, %out[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    gpu.return
  }

  // A global store moves up, with the conversion that only feeds it, to
  // just after its value: %w's registers are free before the matmul. The
  // store to %qs stops below the load of %qs (it may not pass a read of
  // what it writes); loads and stores of other memrefs do not hold it, so
  // the store to %out passes the one to %qs.
  // CHECK-LABEL: gpu.func @stores
  // CHECK: scf.for
  // CHECK-NEXT: %[[W:.*]] = gdn.tile_load %arg0
  // CHECK-NEXT: %[[WT:.*]] = arith.truncf %[[W]]
  // CHECK-NEXT: gdn.tile_store %[[WT]], %arg2
  // CHECK: %[[Q:.*]] = gdn.tile_load %arg1
  // CHECK: %[[OLD:.*]] = gdn.tile_load %arg3
  // CHECK-NEXT: gdn.tile_store %[[OLD]], %arg4
  // CHECK-NEXT: %[[QT:.*]] = arith.truncf %[[Q]]
  // CHECK-NEXT: gdn.tile_store %[[QT]], %arg3
  // CHECK-NEXT: gdn.matmul
  gpu.func @stores(%wm: memref<64x128xf32>, %qm: memref<64x128xf32>,
                   %ws: memref<64x128xbf16>, %qs: memref<64x128xbf16>,
                   %out: memref<64x128xbf16>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) {
      %w = gdn.tile_load %wm[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
      %q = gdn.tile_load %qm[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
      %qt = arith.truncf %q : tensor<64x128xf32, #blocked> to tensor<64x128xbf16, #blocked>
      %old = gdn.tile_load %qs[%c0, %c0] dims [0, 1] : memref<64x128xbf16> -> tensor<64x128xbf16, #blocked>
      %qa = gdn_gpu.convert_layout %q : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #a>
      %wb = gdn_gpu.convert_layout %w : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #b>
      %s = gdn.matmul %qa, %wb transpose_b mask none acc(%acc : tensor<64x64xf32, #mma>)
          : tensor<64x128xf32, #a>, tensor<64x128xf32, #b> -> tensor<64x64xf32, #mma>
      %wt = arith.truncf %w : tensor<64x128xf32, #blocked> to tensor<64x128xbf16, #blocked>
      gdn.tile_store %wt, %ws[%c0, %c0] dims [0, 1] : tensor<64x128xbf16, #blocked>, memref<64x128xbf16>
      gdn.tile_store %qt, %qs[%c0, %c0] dims [0, 1] : tensor<64x128xbf16, #blocked>, memref<64x128xbf16>
      gdn.tile_store %old, %out[%c0, %c0] dims [0, 1] : tensor<64x128xbf16, #blocked>, memref<64x128xbf16>
      scf.yield %s : tensor<64x64xf32, #mma>
    }
    gpu.return
  }

  // Nor does a store move above an op with regions that writes what it
  // writes; one that writes only another memref it passes.
  // CHECK-LABEL: gpu.func @store_below_writes
  // CHECK:      %[[W:.*]] = gdn.tile_load %arg0
  // CHECK-NEXT: scf.if
  // CHECK:      }
  // CHECK-NEXT: gdn.tile_store %[[W]], %arg1
  // CHECK-NEXT: scf.if
  gpu.func @store_below_writes(%wm: memref<64x128xf32>, %ws: memref<64x128xf32>,
                               %flag: i1) kernel {
    %c0 = arith.constant 0 : index
    %w = gdn.tile_load %wm[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
    scf.if %flag {
      gdn.tile_store %w, %ws[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    }
    scf.if %flag {
      gdn.tile_store %w, %wm[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    }
    gdn.tile_store %w, %ws[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    gpu.return
  }
}
}
