// RUN: gdn-opt %s --gdn-gpu-prefetch-next-chunk | FileCheck %s --implicit-check-not=gdn.tile_prefetch
// RUN: gdn-opt %s --gdn-gpu-prefetch-next-chunk --gdn-gpu-lower-tiles=mma-precision=bf16 | FileCheck %s --check-prefix=LOWER
// The pass is part of gdn-gpu-tiles-to-ptx unless prefetch=false.
// RUN: gdn-opt %s --gdn-gpu-tiles-to-ptx=mma-precision=bf16 | FileCheck %s --check-prefix=PTX
// RUN: gdn-opt %s --gdn-gpu-tiles-to-ptx="mma-precision=bf16 prefetch=false" | FileCheck %s --check-prefix=NOPTX --implicit-check-not=prefetch
// PTX: prefetch.L2
// NOPTX: gpu.binary

#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {gpu.container_module} {
gpu.module @k {
  // Tiles whose corner and row count follow the chunk index get a prefetch
  // of the next chunk's tile, the address ops cloned with the index
  // stepped, under a guard that one more iteration follows. The tile the
  // same in every chunk, the one addressed by a carried value and the one
  // the loop carries (already loaded a chunk ahead) get none.
  // CHECK-LABEL: gpu.func @chunk_loop
  // CHECK:      scf.for %[[C:.*]] = %[[LB:.*]] to %[[UB:.*]] step %[[S:.*]] iter_args(
  // CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[C]], %[[S]] : index
  // CHECK-NEXT:   %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : index
  // CHECK-NEXT:   scf.if %[[MORE]] {
  // CHECK-NEXT:     %[[T1:.*]] = arith.muli %[[NEXT]], %c64
  // CHECK-NEXT:     %[[LEFT:.*]] = arith.subi %arg3, %[[T1]]
  // CHECK-NEXT:     %[[N1:.*]] = arith.minui %[[LEFT]], %c64
  // CHECK-NEXT:     gdn.tile_prefetch %arg0[%[[T1]], %arg4, %c0] dims [0, 2] shape [64, 128] rows %[[N1]] : memref<?x?x128xbf16>
  // CHECK-NEXT:     gdn.tile_prefetch %arg1[%[[T1]], %arg4] dims [0] shape [64] rows %[[N1]] : memref<?x?xf32>
  // CHECK-NEXT:   }
  // CHECK-NEXT:   %[[T0:.*]] = arith.muli %[[C]], %c64
  // CHECK-NOT:  gdn.tile_prefetch
  // CHECK:      scf.yield
  gpu.func @chunk_loop(%q: memref<?x?x128xbf16>, %g: memref<?x?xf32>,
                       %w: memref<64x128xbf16>, %len: index, %h: index,
                       %chunks: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %init = arith.constant dense<0.0> : tensor<64x128xbf16, #blocked>
    %r:3 = scf.for %c = %c0 to %chunks step %c1 iter_args(%acc = %init, %t = %c0, %ahead = %init) -> (tensor<64x128xbf16, #blocked>, index, tensor<64x128xbf16, #blocked>) {
      %t0 = arith.muli %c, %c64 : index
      %left = arith.subi %len, %t0 : index
      %n = arith.minui %left, %c64 : index
      %x = gdn.tile_load %q[%t0, %h, %c0] dims [0, 2] rows %n : memref<?x?x128xbf16> -> tensor<64x128xbf16, #blocked>
      %gate = gdn.tile_load %g[%t0, %h] dims [0] rows %n : memref<?x?xf32> -> tensor<64xf32, #row>
      %same = gdn.tile_load %w[%c0, %c0] dims [0, 1] : memref<64x128xbf16> -> tensor<64x128xbf16, #blocked>
      %carried = gdn.tile_load %q[%t, %h, %c0] dims [0, 2] : memref<?x?x128xbf16> -> tensor<64x128xbf16, #blocked>
      %t1 = arith.addi %t0, %c64 : index
      %next = gdn.tile_load %q[%t1, %h, %c0] dims [0, 2] : memref<?x?x128xbf16> -> tensor<64x128xbf16, #blocked>
      %s1 = arith.addf %acc, %x : tensor<64x128xbf16, #blocked>
      %s2 = arith.addf %s1, %same : tensor<64x128xbf16, #blocked>
      %s3 = arith.addf %s2, %carried : tensor<64x128xbf16, #blocked>
      %s4 = arith.addf %s3, %ahead : tensor<64x128xbf16, #blocked>
      %t2 = arith.addi %t, %c64 : index
      scf.yield %s4, %t2, %next : tensor<64x128xbf16, #blocked>, index, tensor<64x128xbf16, #blocked>
    }
    gdn.tile_store %r#0, %q[%c0, %h, %c0] dims [0, 2] : tensor<64x128xbf16, #blocked>, memref<?x?x128xbf16>
    gpu.return
  }

  // A 64 x 128 bf16 tile is 128 lines of 128 bytes: one prefetch on each of
  // the 128 threads, for rows below the count; 64 gates along tokens are a
  // line each (threads 64 and up ask for none).
  // LOWER-LABEL: gpu.func @chunk_loop
  // LOWER:       scf.for
  // LOWER:         scf.if
  // LOWER:           llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;"
  // LOWER:           %[[ROW:.*]] = arith.divui %{{.*}}, %c2{{.*}} : index
  // LOWER:           %[[COLS:.*]] = arith.muli %{{.*}}, %c64{{.*}} : index
  // LOWER:           %[[KEEP:.*]] = arith.cmpi ult, %[[ROW]], %{{.*}} : index
  // LOWER-NEXT:      scf.if %[[KEEP]] {
  // The element offset: (token + row) * stride0 + head * stride1 + (0 +
  // column) * stride2, in bytes from the aligned pointer.
  // LOWER:             %[[T:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
  // LOWER-NEXT:        %[[T2:.*]] = arith.muli %[[T]], %[[S0:.*]]#0 : index
  // LOWER:             arith.muli %{{.*}}, %[[S0]]#1 : index
  // LOWER:             %[[C:.*]] = arith.addi %c0{{.*}}, %[[COLS]] : index
  // LOWER-NEXT:        arith.muli %[[C]], %[[S0]]#2 : index
  // LOWER:             arith.muli %{{.*}}, %c2{{.*}} : index
  // LOWER:             %[[P:.*]] = llvm.inttoptr
  // LOWER-NEXT:        nvvm.prefetch level = L2, %[[P]] : !llvm.ptr
  // LOWER:           %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c64{{.*}} : index
  // LOWER-NEXT:      %[[ROWS:.*]] = arith.cmpi ult
  // LOWER-NEXT:      %[[BOTH:.*]] = arith.andi %[[IN]], %[[ROWS]]
  // LOWER-NEXT:      scf.if %[[BOTH]] {
  // LOWER:             nvvm.prefetch level = L2
  // LOWER-NOT:     nvvm.prefetch
  // LOWER:         scf.yield

  // A corner that is the induction variable itself (staged's state kernel
  // walks its workspace slots so) is stepped directly; an unsigned loop
  // compares unsigned. Not prefetched: a tile of a memref that is not a
  // kernel argument; a rank-2 tile whose rows are not runs of the
  // contiguous dimension (transposed dims: a line per element); a tile of
  // more lines than the block has threads (a 128 x 128 f32 map, 512
  // lines, as split-seq's combine loads a step).
  // CHECK-LABEL: gpu.func @direct_index
  // CHECK:      scf.for unsigned %[[S:[a-z0-9_]+]] = %{{.*}} to %[[N:[a-z0-9_]+]] step %[[ONE:[a-z0-9_]+]] iter_args
  // CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[S]], %[[ONE]] : index
  // CHECK-NEXT:   %[[MORE:.*]] = arith.cmpi ult, %[[NEXT]], %[[N]] : index
  // CHECK-NEXT:   scf.if %[[MORE]] {
  // CHECK-NEXT:     gdn.tile_prefetch %arg0[%arg3, %[[NEXT]], %c0, %c0] dims [2, 3] shape [64, 128] : memref<?x?x64x128xbf16>
  // CHECK-NEXT:   }
  // CHECK-NOT:    gdn.tile_prefetch
  // CHECK:        scf.yield
  gpu.func @direct_index(%slots: memref<?x?x64x128xbf16>, %maps: memref<?x?x128x128xf32>,
                         %q: memref<?x?x128xbf16>, %h: index, %n: index) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %local = memref.alloc() : memref<4x64x128xbf16>
    %init = arith.constant dense<0.0> : tensor<64x128xbf16, #blocked>
    %r = scf.for unsigned %s = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x128xbf16, #blocked>) {
      %w = gdn.tile_load %slots[%h, %s, %c0, %c0] dims [2, 3] : memref<?x?x64x128xbf16> -> tensor<64x128xbf16, #blocked>
      %l = gdn.tile_load %local[%s, %c0, %c0] dims [1, 2] : memref<4x64x128xbf16> -> tensor<64x128xbf16, #blocked>
      %t = gdn.tile_load %q[%s, %h, %c0] dims [2, 0] : memref<?x?x128xbf16> -> tensor<128x64xbf16, #blocked>
      %m = gdn.tile_load %maps[%h, %s, %c0, %c0] dims [2, 3] : memref<?x?x128x128xf32> -> tensor<128x128xf32, #blocked>
      %a = arith.addf %acc, %w : tensor<64x128xbf16, #blocked>
      %b = arith.addf %a, %l : tensor<64x128xbf16, #blocked>
      gdn.tile_store %m, %maps[%h, %c0, %c0, %c0] dims [2, 3] : tensor<128x128xf32, #blocked>, memref<?x?x128x128xf32>
      scf.yield %b : tensor<64x128xbf16, #blocked>
    }
    gdn.tile_store %r, %slots[%h, %c0, %c0, %c0] dims [2, 3] : tensor<64x128xbf16, #blocked>, memref<?x?x64x128xbf16>
    gpu.return
  }

  // Without a known one-dimensional block the lowering could not spread
  // the lines over the threads: no prefetch.
  // CHECK-LABEL: gpu.func @unknown_block
  // CHECK-NOT:   gdn.tile_prefetch
  // CHECK:       gpu.return
  gpu.func @unknown_block(%slots: memref<?x?x64x128xbf16>, %h: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %s = %c0 to %n step %c1 {
      %w = gdn.tile_load %slots[%h, %s, %c0, %c0] dims [2, 3] : memref<?x?x64x128xbf16> -> tensor<64x128xbf16, #blocked>
      gdn.tile_store %w, %slots[%h, %c0, %c0, %c0] dims [2, 3] : tensor<64x128xbf16, #blocked>, memref<?x?x64x128xbf16>
    }
    gpu.return
  }

  // A schedule with prefetch=none marks its kernels gdn.no_prefetch: the
  // same loop as @unknown_block's, in a known block, gets no prefetch.
  // CHECK-LABEL: gpu.func @schedule_says_none
  // CHECK-NOT:   gdn.tile_prefetch
  // CHECK:       gpu.return
  gpu.func @schedule_says_none(%slots: memref<?x?x64x128xbf16>, %h: index, %n: index) kernel
      attributes {gdn.no_prefetch, known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %s = %c0 to %n step %c1 {
      %w = gdn.tile_load %slots[%h, %s, %c0, %c0] dims [2, 3] : memref<?x?x64x128xbf16> -> tensor<64x128xbf16, #blocked>
      gdn.tile_store %w, %slots[%h, %c0, %c0, %c0] dims [2, 3] : tensor<64x128xbf16, #blocked>, memref<?x?x64x128xbf16>
    }
    gpu.return
  }

  // A two-dimensional block, a workgroup buffer and a memref in another
  // memory space: no prefetch either.
  // CHECK-LABEL: gpu.func @not_global_or_flat
  // CHECK-NOT:   gdn.tile_prefetch
  // CHECK:       gpu.return
  gpu.func @not_global_or_flat(%slots: memref<?x?x64x128xbf16>, %h: index, %n: index) kernel
      attributes {known_block_size = array<i32: 128, 2, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %s = %c0 to %n step %c1 {
      %w = gdn.tile_load %slots[%h, %s, %c0, %c0] dims [2, 3] : memref<?x?x64x128xbf16> -> tensor<64x128xbf16, #blocked>
      gdn.tile_store %w, %slots[%h, %c0, %c0, %c0] dims [2, 3] : tensor<64x128xbf16, #blocked>, memref<?x?x64x128xbf16>
    }
    gpu.return
  }
  // CHECK-LABEL: gpu.func @other_spaces
  // CHECK-NOT:   gdn.tile_prefetch
  // CHECK:       gpu.return
  gpu.func @other_spaces(%far: memref<?x64x128xbf16, 1>, %n: index)
      workgroup(%near: memref<4x64x128xbf16, #gpu.address_space<workgroup>>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %s = %c0 to %n step %c1 {
      %a = gdn.tile_load %far[%s, %c0, %c0] dims [1, 2] : memref<?x64x128xbf16, 1> -> tensor<64x128xbf16, #blocked>
      %b = gdn.tile_load %near[%s, %c0, %c0] dims [1, 2] : memref<4x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16, #blocked>
      %c = arith.addf %a, %b : tensor<64x128xbf16, #blocked>
      gdn.tile_store %c, %far[%c0, %c0, %c0] dims [1, 2] : tensor<64x128xbf16, #blocked>, memref<?x64x128xbf16, 1>
    }
    gpu.return
  }

  // No chunk loop, nothing to do.
  // CHECK-LABEL: gpu.func @no_loop
  // CHECK-NOT:   gdn.tile_prefetch
  gpu.func @no_loop(%q: memref<?x?x128xbf16>, %h: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %x = gdn.tile_load %q[%c0, %h, %c0] dims [0, 2] : memref<?x?x128xbf16> -> tensor<64x128xbf16, #blocked>
    gdn.tile_store %x, %q[%c0, %h, %c0] dims [0, 2] : tensor<64x128xbf16, #blocked>, memref<?x?x128xbf16>
    gpu.return
  }
}
}
