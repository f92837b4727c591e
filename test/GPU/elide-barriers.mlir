// RUN: gdn-opt %s --gdn-gpu-elide-barriers | FileCheck %s

// Barriers that order nothing go: one right after another, and one between
// two runs of shared-memory writes (two stagings in a row). A barrier next to
// a shared read, a wgmma op or an op with regions (other than an scf.if
// that touches no shared memory) stays, and so do the first
// and the last barrier of a block (what lies beyond them is not known here).
module attributes {gpu.container_module} {
gpu.module @k {
  // The first staging's proxy fence goes too: the second one, with only
  // writes between, publishes both stagings' writes.
  // CHECK-LABEL: gpu.func @stagings
  // CHECK:      nvvm.barrier0
  // CHECK-NEXT: vector.store %{{.*}}, %[[A:.*]][%c0]
  // CHECK-NEXT: llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;"
  // CHECK-NEXT: vector.store %{{.*}}, %[[B:.*]][%c0]
  // CHECK-NEXT: nvvm.fence.proxy
  // CHECK-NEXT: memref.store %{{.*}}, %arg0[%c0]
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: vector.load %[[A]][%c0]
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: vector.store %{{.*}}, %[[A]][%c0]
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: nvvm.wgmma.fence.aligned
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: vector.store %{{.*}}, %[[B]][%c0]
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: scf.if
  // CHECK:      }
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: vector.store
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: gpu.return
  gpu.func @stagings(%out: memref<4xf32>, %flag: i1) kernel {
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %x = arith.constant dense<1.0> : vector<4xf32>
    %f = arith.constant 2.0 : f32
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c1024][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    // Two stagings in a row: lead, write, fence, trail; lead, write, fence,
    // trail. The middle two barriers go; the global store does not count.
    nvvm.barrier0
    vector.store %x, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.barrier0
    nvvm.barrier0
    %tid = llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r" : () -> i32
    vector.store %x, %b[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    memref.store %f, %out[%c0] : memref<4xf32>
    nvvm.barrier0
    // A read: the barriers around it stay.
    %r = vector.load %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.barrier0
    vector.store %r, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.barrier0
    // A wgmma op reads shared memory (asynchronously).
    nvvm.wgmma.fence.aligned
    nvvm.barrier0
    vector.store %x, %b[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.barrier0
    // An op with regions: unknown.
    scf.if %flag {
      vector.store %x, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    }
    nvvm.barrier0
    vector.store %x, %b[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.barrier0
    gpu.return
  }

  // An `scf.if` whose ops touch no shared memory (row-guarded global
  // stores, L2 prefetches of the next chunk, thread-id moves) is not in the
  // way: the barrier between the two stagings around it goes. The same if
  // holding a shared read keeps both of its barriers.
  // CHECK-LABEL: gpu.func @guarded_global
  // CHECK:      nvvm.barrier0
  // CHECK-NEXT: vector.store %{{.*}}, %[[A:.*]][%c0]
  // CHECK-NEXT: scf.if
  // CHECK-NEXT:   llvm.inline_asm
  // CHECK-NEXT:   scf.if
  // CHECK-NEXT:     memref.store
  // CHECK-NEXT:     nvvm.prefetch level = L2
  // CHECK-NEXT:   }
  // CHECK-NEXT: }
  // CHECK-NEXT: vector.store %{{.*}}, %[[A]][%c0]
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: scf.if
  // CHECK-NEXT:   vector.load
  // CHECK-NEXT: }
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: vector.store
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: gpu.return
  gpu.func @guarded_global(%out: memref<4xf32>, %p: !llvm.ptr, %flag: i1) kernel {
    %c0 = arith.constant 0 : index
    %x = arith.constant dense<1.0> : vector<4xf32>
    %f = arith.constant 2.0 : f32
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    nvvm.barrier0
    vector.store %x, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    scf.if %flag {
      %tid = llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r" : () -> i32
      scf.if %flag {
        memref.store %f, %out[%c0] : memref<4xf32>
        nvvm.prefetch level = L2, %p : !llvm.ptr
      }
    }
    nvvm.barrier0
    vector.store %x, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.barrier0
    scf.if %flag {
      %r = vector.load %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    }
    nvvm.barrier0
    vector.store %x, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.barrier0
    gpu.return
  }

  // Removing a barrier merges the runs around it: after a run of writes, of
  // two barriers before a read one stays. A proxy fence counts as a write,
  // so the barrier between it and the wgmma that reads stays.
  // CHECK-LABEL: gpu.func @merged_runs
  // CHECK:      nvvm.barrier0
  // CHECK-NEXT: vector.store
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: vector.load
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: nvvm.fence.proxy
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: nvvm.wgmma.fence.aligned
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: gpu.return
  gpu.func @merged_runs(%x: vector<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    nvvm.barrier0
    vector.store %x, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.barrier0
    nvvm.barrier0
    %r = vector.load %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.barrier0
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.barrier0
    nvvm.wgmma.fence.aligned
    nvvm.barrier0
    gpu.return
  }

  // In a loop body the same holds per block; the body's first barrier
  // stays (the previous iteration's end is beyond the block).
  // CHECK-LABEL: gpu.func @loop_body
  // CHECK:      scf.for
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: vector.store
  // CHECK-NEXT: vector.store
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: vector.load
  // CHECK-NEXT: }
  gpu.func @loop_body(%x: vector<4xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1024 = arith.constant 1024 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c1024][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %n step %c1 {
      nvvm.barrier0
      vector.store %x, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      nvvm.barrier0
      vector.store %x, %b[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      nvvm.barrier0
      %r = vector.load %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    }
    gpu.return
  }
  // A fence stays when anything but shared-memory writes comes before the
  // next one: a wgmma op (it reads staged buffers through the async proxy),
  // a barrier, or an op the pass does not model (here a shared read, kept
  // conservatively).
  // CHECK-LABEL: gpu.func @fences_kept
  // CHECK:      vector.store
  // CHECK-NEXT: nvvm.fence.proxy
  // CHECK-NEXT: nvvm.wgmma.fence.aligned
  // CHECK-NEXT: vector.store
  // CHECK-NEXT: nvvm.fence.proxy
  // CHECK-NEXT: vector.load
  // CHECK-NEXT: vector.store
  // CHECK-NEXT: nvvm.fence.proxy
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: vector.store
  // CHECK-NEXT: nvvm.fence.proxy
  // CHECK-NEXT: nvvm.barrier0
  gpu.func @fences_kept() kernel {
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %x = arith.constant dense<1.0> : vector<4xf32>
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c1024][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    nvvm.barrier0
    vector.store %x, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.wgmma.fence.aligned
    vector.store %x, %b[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    %r = vector.load %b[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %r, %a[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.barrier0
    vector.store %x, %b[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.barrier0
    gpu.return
  }
}
}
