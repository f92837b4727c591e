// RUN: gdn-opt %s -split-input-file --gdn-gpu-lower-tiles=mma-precision=bf16 | FileCheck %s
// RUN: gdn-opt %s -split-input-file --gdn-gpu-lower-tiles=mma-precision=tf32 | FileCheck %s --check-prefix=TF32
// RUN: not gdn-opt %s -split-input-file --gdn-gpu-lower-tiles=mma-precision=fp8 2>&1 | FileCheck %s --check-prefix=BADPREC
// RUN: gdn-opt %S/Inputs/wy-tiles.mlir --gdn-gpu-lower-tiles=mma-precision=bf16 | FileCheck %s --check-prefix=WY

// BADPREC: gdn-gpu-lower-tiles: mma-precision must be auto, bf16, f16 or tf32, got 'fp8'

#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#a = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#b = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
module attributes {gpu.container_module} {
gpu.module @k {
  // A 64x64 accumulator is 32 registers a thread; elementwise work, splats
  // and constants act on them in place. Staging an operand writes a shared
  // buffer (16 KiB in bf16, after the 16 KiB scratch area of the move back
  // to a blocked layout) with one vector store per run of four registers
  // along K (the blocked layout's sizePerThread), fences it for the async
  // proxy and meets the block. K staged as B holds the bytes K staged as A
  // does, so both operands read one buffer (one staging, no second set of
  // stores or barriers); the
  // product is a chain of wgmma over K (bf16: k16, 8 steps for K = 128;
  // tf32: k8, 16 steps), waited for before its registers are read.
  // CHECK-LABEL: gpu.func @mm
  // CHECK-SAME: gdn.shared_bytes_per_block = 32768
  // CHECK: memref.view {{.*}} to memref<8192xbf16, #gpu.address_space<workgroup>>
  // CHECK-NOT: memref.store {{.*}} : memref<8192xbf16
  // CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<8192xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
  // CHECK-NOT: memref.store {{.*}} : memref<8192xbf16
  // CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NOT: nvvm.fence.proxy
  // CHECK-NOT: vector.store {{.*}} : memref<8192xbf16
  // Both descriptor bases pass an opaque move at the matmul, so LLVM
  // cannot hoist the descriptors out of a chunk loop (ptxas spilled them).
  // CHECK: llvm.inline_asm has_side_effects "mov.b64 $0, $1;", "=l,l"
  // CHECK: llvm.inline_asm has_side_effects "mov.b64 $0, $1;", "=l,l"
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
  // CHECK: %[[ACC:.*]] = vector.from_elements {{.*}} : vector<32xf32>
  // CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : vector<32xf32>
  // CHECK: %[[S:.*]] = vector.broadcast %{{.*}} : f32 to vector<32xf32>
  // CHECK: %[[X:.*]] = arith.mulf %[[ACC]], %[[TWO]] : vector<32xf32>
  // CHECK: arith.addf %[[X]], %[[S]] : vector<32xf32>
  // Back to blocked through the scratch area: the accumulator's column
  // pairs as 8-byte stores, the blocked layout's runs of four as 16-byte
  // loads.
  // CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<4096xf32, #gpu.address_space<workgroup>>, vector<2xf32>
  // CHECK-NOT: memref.store {{.*}} : memref<4096xf32
  // CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<4096xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  // TF32-LABEL: gpu.func @mm
  // TF32-SAME: gdn.shared_bytes_per_block = 49152
  // TF32-COUNT-16: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
  // TF32-NOT: nvvm.wgmma.mma_async
  gpu.func @mm(%km: memref<64x128xf32>, %out: memref<64x64xf32>, %s: f32) kernel {
    %c0 = arith.constant 0 : index
    %k = gdn.tile_load %km[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
    %ka = gdn_gpu.convert_layout %k : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #a>
    %kb = gdn_gpu.convert_layout %k : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #b>
    %kk = gdn.matmul %ka, %kb transpose_b mask none
        : tensor<64x128xf32, #a>, tensor<64x128xf32, #b> -> tensor<64x64xf32, #mma>
    %two = arith.constant dense<2.0> : tensor<64x64xf32, #mma>
    %splat = tensor.splat %s : tensor<64x64xf32, #mma>
    %x = arith.mulf %kk, %two : tensor<64x64xf32, #mma>
    %y = arith.addf %x, %splat : tensor<64x64xf32, #mma>
    %yb = gdn_gpu.convert_layout %y : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    gdn.tile_store %yb, %out[%c0, %c0] dims [0, 1] : tensor<64x64xf32, #blocked>, memref<64x64xf32>
    gpu.return
  }
}
}

// -----

#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 2], instrN = 64>
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#a = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#b = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
module attributes {gpu.container_module} {
gpu.module @k {
  // Two warpgroups split N = 128: each runs m64n64 chains, its B descriptor
  // starting 64 staged rows (64 x 128 bytes) into B for warpgroup 1, and an
  // accumulator (acc) starts from the registers it adds to: 32 a thread.
  // CHECK-LABEL: gpu.func @two_warpgroups
  // With warpsPerCTA = [4, 2] the column pairs still move as one access.
  // CHECK: vector.load {{.*}} {alignment = 8 : i64} : memref<8192xf32, #gpu.address_space<workgroup>>, vector<2xf32>
  // The thread id is read afresh per op (a read with side effects), so that
  // LLVM cannot hoist per-register addresses out of a chunk loop.
  // CHECK: %[[TID32:.*]] = llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r"
  // CHECK: %[[TID:.*]] = arith.index_castui %[[TID32]] : i32 to index
  // CHECK: %[[G:.*]] = arith.divui %[[TID]], %c128{{.*}} : index
  // CHECK: %[[GI:.*]] = arith.index_castui %[[G]] : index to i64
  // CHECK: arith.muli %[[GI]], %c8192_i64 : i64
  // The starting registers pass an empty asm with side effects before the
  // fence, the results another after the wait (CUTLASS's
  // warpgroup_fence_operand): else LLVM moves their uses above the wait and
  // ptxas serialises every wgmma (C7514).
  // CHECK: llvm.insertvalue
  // CHECK: %[[INIT:.*]] = llvm.inline_asm has_side_effects "", "=f,{{.*}},0,1,{{.*}},31" {{.*}} -> !llvm.struct<(f32
  // CHECK-NEXT: nvvm.wgmma.fence.aligned
  // CHECK: nvvm.wgmma.mma_async {{.*}}, %[[INIT]], <m = 64, n = 64, k = 16>
  // CHECK-COUNT-7: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
  // CHECK: %[[DONE:.*]] = llvm.inline_asm has_side_effects "", "=f,{{.*}},0,1,{{.*}},31"
  // CHECK: %{{.*}} = llvm.extractvalue %[[DONE]][0]
  // CHECK: vector.from_elements {{.*}} : vector<32xf32>
  // CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<8192xf32, #gpu.address_space<workgroup>>, vector<2xf32>
  // TF32-LABEL: gpu.func @two_warpgroups
  // TF32-COUNT-16: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 8>
  // TF32-NOT: nvvm.wgmma.mma_async
  gpu.func @two_warpgroups(%qm: memref<64x128xf32>, %vm: memref<128x128xf32>, %out: memref<64x128xf32>) kernel {
    %c0 = arith.constant 0 : index
    %q = gdn.tile_load %qm[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
    %v = gdn.tile_load %vm[%c0, %c0] dims [0, 1] : memref<128x128xf32> -> tensor<128x128xf32, #blocked>
    %qa = gdn_gpu.convert_layout %q : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #a>
    %vb = gdn_gpu.convert_layout %v : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #b>
    %c = gdn_gpu.convert_layout %q : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #mma>
    %r = gdn.matmul %qa, %vb transpose_b mask none acc(%c : tensor<64x128xf32, #mma>)
        : tensor<64x128xf32, #a>, tensor<128x128xf32, #b> -> tensor<64x128xf32, #mma>
    %rb = gdn_gpu.convert_layout %r : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #blocked>
    gdn.tile_store %rb, %out[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    gpu.return
  }
}
}

// -----

#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {gpu.container_module} {
gpu.module @k {
  // Loads and stores with a row count: the row index is clamped and the
  // value selected for loads, stores are guarded. 64 x 64 over 128 threads:
  // 32 registers a thread, in runs of four consecutive columns of one row,
  // so 8 aligned 16-byte loads and 8 guarded 16-byte stores.
  // CHECK-LABEL: gpu.func @ragged
  // CHECK-COUNT-8: arith.select %{{.*}}, %{{.*}}, %c0{{.*}} : index
  // CHECK-NOT: memref.load
  // CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
  // CHECK-NEXT: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
  // CHECK: vector.from_elements {{.*}} : vector<32xf32>
  // CHECK-COUNT-8: scf.if
  // CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
  // CHECK-NOT: memref.store
  gpu.func @ragged(%m: memref<64x64xf32>, %o: memref<64x64xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %t = gdn.tile_load %m[%c0, %c0] dims [0, 1] rows %n : memref<64x64xf32> -> tensor<64x64xf32, #blocked>
    gdn.tile_store %t, %o[%c0, %c0] dims [0, 1] rows %n : tensor<64x64xf32, #blocked>, memref<64x64xf32>
    gpu.return
  }
}
}

// -----

#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {gpu.container_module} {
gpu.module @k {
  // Padding: a head size of 36 in a 64-wide tile. Runs of four columns
  // divide 36, so each 16-byte access is wholly inside or wholly padding:
  // a load past column 36 reads column 0 and selects zero, a store there
  // is skipped.
  // CHECK-LABEL: gpu.func @padded
  // CHECK: arith.cmpi ult, %{{.*}}, %c36{{.*}} : index
  // CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x36xf32>, vector<4xf32>
  // CHECK-NEXT: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
  // CHECK: vector.from_elements {{.*}} : vector<32xf32>
  // CHECK: arith.cmpi ult, %{{.*}}, %c36{{.*}} : index
  // CHECK: scf.if
  // CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x36xf32>, vector<4xf32>
  // CHECK-NOT: memref.store
  gpu.func @padded(%m: memref<?x36xf32>, %o: memref<?x36xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = gdn.tile_load %m[%c0, %c0] dims [0, 1] : memref<?x36xf32> -> tensor<64x64xf32, #blocked>
    gdn.tile_store %t, %o[%c0, %c0] dims [0, 1] : tensor<64x64xf32, #blocked>, memref<?x36xf32>
    gpu.return
  }
}
}

// -----

#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {gpu.container_module} {
gpu.module @k {
  // A corner column that may not be a multiple of four (here a kernel
  // argument) could misalign the runs: one access per element. A corner
  // built as a multiple of 64 (a V-split block's first row) keeps them.
  // CHECK-LABEL: gpu.func @corners
  // CHECK-COUNT-32: memref.load %{{.*}} : memref<64x256xf32>
  // CHECK-NOT: memref.load
  // CHECK-COUNT-8: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x256xf32>, vector<4xf32>
  gpu.func @corners(%m: memref<64x256xf32>, %o: memref<64x64xf32>, %col: index, %blk: index) kernel {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %a = gdn.tile_load %m[%c0, %col] dims [0, 1] : memref<64x256xf32> -> tensor<64x64xf32, #blocked>
    %v0 = arith.muli %blk, %c64 : index
    %b = gdn.tile_load %m[%c0, %v0] dims [0, 1] : memref<64x256xf32> -> tensor<64x64xf32, #blocked>
    %s = arith.addf %a, %b : tensor<64x64xf32, #blocked>
    gdn.tile_store %s, %o[%c0, %c0] dims [0, 1] : tensor<64x64xf32, #blocked>, memref<64x64xf32>
    gpu.return
  }
}
}

// -----

#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 2], instrN = 64>
module attributes {gpu.container_module} {
gpu.module @k {
  // Loads into and stores straight from the accumulator layout (two
  // warpgroups), with no trip through shared memory. bf16: the four lanes of a quad transpose
  // their column pairs of four 8-column blocks through shuffles (two xor
  // steps, two shuffles each), then each lane stores one block's 8 columns
  // of a row, 16 bytes, guarded by the row count (64 x 128 over 256
  // threads: 4 stores instead of 16 pairs). fp32: 8-byte runs of a
  // 128 x 128 state (32 runs).
  // The bf16 load the other way round: each lane loads one block's 8
  // columns of its row (16 bytes; row 0 past the row count, then zeros),
  // and the quad transposes them into its pairs: 4 loads, not 16.
  // CHECK-LABEL: gpu.func @accumulator_stores
  // CHECK-NOT: nvvm.barrier0
  // CHECK: arith.index_cast %{{.*}} : index to i32
  // CHECK: %[[LD:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?x128xbf16>, vector<8xbf16>
  // CHECK: arith.select %{{.*}}, %[[LD]], %{{.*}} : vector<8xbf16>
  // CHECK-COUNT-2: gpu.shuffle xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : i32
  // CHECK-COUNT-2: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : i32
  // CHECK-COUNT-3: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?x128xbf16>, vector<8xbf16>
  // CHECK-NOT: memref.load
  // CHECK: arith.index_cast %[[QUAD:.*]] : index to i32
  // CHECK: gpu.shuffle xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : i32
  // CHECK: gpu.shuffle xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : i32
  // CHECK: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : i32
  // CHECK: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : i32
  // CHECK: vector.bitcast %{{.*}} : vector<4xi32> to vector<8xbf16>
  // Lane t's 8 columns start 6t right of its first pair (2t): at 8t.
  // CHECK: %[[SIX:.*]] = arith.muli %[[QUAD]], %c6{{.*}} : index
  // CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %[[SIX]] : index
  // CHECK: %[[IDX:.*]] = arith.addi %c0, %[[COL]] : index
  // CHECK: scf.if
  // CHECK-NEXT: vector.store %{{.*}}[%{{.*}}, %c0, %[[IDX]]] {alignment = 16 : i64} : memref<?x?x128xbf16>, vector<8xbf16>
  // CHECK-COUNT-3: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x?x128xbf16>, vector<8xbf16>
  // CHECK-NOT: vector.store %{{.*}} : memref<?x?x128xbf16>
  // CHECK-COUNT-32: vector.store %{{.*}} {alignment = 8 : i64} : memref<?x?x128x128xf32>, vector<2xf32>
  // CHECK-NOT: memref.store
  // CHECK-NOT: nvvm.barrier0
  // CHECK: gpu.return
  gpu.func @accumulator_stores(%src: memref<?x?x128xbf16>, %o: memref<?x?x128xbf16>,
                               %spool: memref<?x?x128x128xf32>, %pool: memref<?x?x128x128xf32>,
                               %n: index, %page: index) kernel {
    %c0 = arith.constant 0 : index
    %t = gdn.tile_load %src[%c0, %c0, %c0] dims [0, 2] rows %n : memref<?x?x128xbf16> -> tensor<64x128xbf16, #mma>
    gdn.tile_store %t, %o[%c0, %c0, %c0] dims [0, 2] rows %n : tensor<64x128xbf16, #mma>, memref<?x?x128xbf16>
    %m = gdn.state_load %spool[%page, %c0, %c0] : memref<?x?x128x128xf32> -> tensor<128x128xf32, #mma>
    gdn.state_store %m, %pool[%page, %c0, %c0] : tensor<128x128xf32, #mma>, memref<?x?x128x128xf32>
    gpu.return
  }
}
}

// The check kernel of scripts/check-tile-lowering.py: a masked, decayed
// K K^T (8 steps of m64n64k16), kk V (4 steps of m64n128k16) and V^T K (a
// 128-row result: 2 x 4 steps of m64n128k16). The 64 KiB scratch area (the
// 128 x 128 fp32 result's move) and three staged tiles: K and V, each
// staged once for both products that read it (so both live to the last
// product), and the 8 KiB kk: 104 KiB.
// WY-LABEL: gpu.func @wy_tiles
// WY-SAME: gdn.shared_bytes_per_block = 106496
// WY-COUNT-8: <m = 64, n = 64, k = 16>
// WY-COUNT-12: <m = 64, n = 128, k = 16>
// WY-NOT: nvvm.wgmma.mma_async

// -----

#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#vec = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {gpu.container_module} {
gpu.module @k {
  // l2norm: the eight lanes of a row meet through three xor shuffles, no
  // shared memory. The cumulative sum, an element of a tile, and the
  // triangular inverse go through the scratch area. The inverse: threads
  // below 64 invert the 16 x 16 diagonal blocks (120 unrolled fmas, no
  // barrier), then two merge levels (s = 16, 32) of two products each, every
  // thread computing 4, then 8, consecutive outputs, a barrier after each.
  // State tiles and page lookups are plain loads.
  // CHECK-LABEL: gpu.func @families
  // CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
  // CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
  // CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
  // CHECK: math.rsqrt
  // CHECK: nvvm.barrier0
  // CHECK: nvvm.barrier0
  // The cumsum: written to the scratch area, then each warp scans the two
  // 32-element segments in five steps, each shuffling up a partial sum's
  // high and low parts, takes the first segment's total (both parts) from
  // lane 31 and adds it to the second.
  // CHECK-NOT: scf.for
  // CHECK: memref.load %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
  // CHECK-COUNT-10: gpu.shuffle up
  // CHECK-NOT: gpu.shuffle up
  // CHECK-COUNT-2: gpu.shuffle idx %{{.*}}, %c31_i32
  // CHECK: memref.load %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
  // CHECK-COUNT-10: gpu.shuffle up
  // CHECK: nvvm.barrier0
  // CHECK: nvvm.barrier0
  // CHECK: memref.view {{.*}} to memref<4352xf32, #gpu.address_space<workgroup>>
  // CHECK: memref.view {{.*}} to memref<4352xf32, #gpu.address_space<workgroup>>
  // CHECK: memref.view {{.*}} to memref<1280xf32, #gpu.address_space<workgroup>>
  // CHECK: nvvm.barrier0
  // CHECK: nvvm.barrier0
  // The inverse: 8 x 8 diagonal blocks by forward substitution (28 fmas on
  // the threads that own a column), the 8 -> 16 merge on fmas (two outputs
  // a thread on 128 threads), then 16 -> 32 and 32 -> 64 on mma.sync in
  // three tf32 passes (hi*lo, lo*hi, hi*hi), a barrier after each product.
  // CHECK: scf.if
  // CHECK-COUNT-28: math.fma
  // CHECK-NOT: nvvm.barrier0
  // CHECK: {{^ *}}}
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-COUNT-16: math.fma
  // CHECK: memref.store
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-16: math.fma
  // CHECK: arith.negf
  // CHECK: nvvm.barrier0
  // CHECK-NOT: math.fma
  // CHECK: arith.andi %{{.*}}, %c-8192_i32 : i32
  // CHECK-COUNT-6: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-6: nvvm.mma.sync
  // CHECK: arith.negf
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-24: nvvm.mma.sync
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-24: nvvm.mma.sync
  // CHECK: arith.negf
  // CHECK: memref.store
  // CHECK: nvvm.barrier0
  // CHECK-NOT: nvvm.mma.sync
  // CHECK-NOT: math.fma
  // CHECK: memref.load %{{.*}} : memref<?xi64>
  // CHECK: memref.load %{{.*}} : memref<?xi64>
  // CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?x64x64xf32>, vector<4xf32>
  gpu.func @families(%x: memref<64x128xf32>, %g: memref<64xf32>, %a: memref<64x64xf32>,
                     %pool: memref<?x?x64x64xf32>, %indices: memref<?xi64>, %indptr: memref<?xi64>,
                     %o: memref<64x128xf32>, %c: memref<64xf32>, %t: memref<64x64xf32>, %last: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %xt = gdn.tile_load %x[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
    %xn = gdn.l2norm %xt : tensor<64x128xf32, #blocked>
    gdn.tile_store %xn, %o[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    %gt = gdn.tile_load %g[%c0] dims [0] : memref<64xf32> -> tensor<64xf32, #vec>
    %cs = gdn.cumsum %gt : tensor<64xf32, #vec>
    gdn.tile_store %cs, %c[%c0] dims [0] : tensor<64xf32, #vec>, memref<64xf32>
    %e = tensor.extract %cs[%c63] : tensor<64xf32, #vec>
    memref.store %e, %last[%c0] : memref<1xf32>
    %at = gdn.tile_load %a[%c0, %c0] dims [0, 1] : memref<64x64xf32> -> tensor<64x64xf32, #blocked>
    %inv = gdn.tri_inverse %at : tensor<64x64xf32, #blocked>
    %page = gdn.page_lookup %indices, %indptr[%c0, %c0] : memref<?xi64>, memref<?xi64>
    %m = gdn.state_load %pool[%page, %c0] : memref<?x?x64x64xf32> -> tensor<64x64xf32, #blocked>
    %sum = arith.addf %inv, %m : tensor<64x64xf32, #blocked>
    gdn.tile_store %sum, %t[%c0, %c0] dims [0, 1] : tensor<64x64xf32, #blocked>, memref<64x64xf32>
    gpu.return
  }
}
}

// -----

#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 2], instrN = 64>
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#at = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = true>>
#bt = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = true>>
module attributes {gpu.container_module} {
gpu.module @k {
  // Operands whose rows run along K (A used as A^T, B given K x N), as the
  // state update Vn^T (K decayed) has them. In bf16 they are staged as they
  // are held, MN-major (K rows of 128 bytes of M or N, the same swizzle):
  // one vector store per run of four registers, no element-wise transpose;
  // wgmma reads them with its transpose bits (A col, B row). The
  // descriptors' leading byte offset is one 64-element slab of M or N (K =
  // 64 rows of 128 bytes: 8192 bytes, field 512), the stride byte offset 8
  // rows (1024); each k16 step moves 16 rows (2048 bytes) down; warpgroup
  // 1's half of N starts one slab (8192 bytes) into B.
  // CHECK-LABEL: gpu.func @transposed_operands
  // CHECK-NOT: memref.store {{.*}} : memref<4096xbf16
  // CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
  // CHECK-NOT: memref.store {{.*}} : memref<8192xbf16
  // CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<8192xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
  // CHECK: nvvm.fence.proxy
  // CHECK: %[[TID:.*]] = llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r"
  // CHECK: %[[TIDX:.*]] = arith.index_castui %[[TID]] : i32 to index
  // CHECK: %[[WG:.*]] = arith.divui %[[TIDX]], %c128{{.*}} : index
  // CHECK: %[[G:.*]] = arith.index_castui %[[WG]] : index to i64
  // CHECK: arith.muli %[[G]], %c8192_i64 : i64
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: arith.constant 4611686293338849280 : i64
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
  // CHECK: arith.constant 2048 : i64
  // CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
  // CHECK: arith.constant 4096 : i64
  // CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
  // CHECK: arith.constant 6144 : i64
  // CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
  // CHECK-NOT: nvvm.wgmma.mma_async
  // tf32 has no transpose bits: the stagings transpose element by element
  // into K-major buffers.
  // TF32-LABEL: gpu.func @transposed_operands
  // TF32: memref.store {{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>
  // TF32-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
  // TF32-NOT: nvvm.wgmma.mma_async
  gpu.func @transposed_operands(%vm: memref<64x64xf32>, %km: memref<64x128xf32>, %out: memref<64x128xf32>) kernel {
    %c0 = arith.constant 0 : index
    %v = gdn.tile_load %vm[%c0, %c0] dims [0, 1] : memref<64x64xf32> -> tensor<64x64xf32, #blocked>
    %k = gdn.tile_load %km[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
    %va = gdn_gpu.convert_layout %v : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #at>
    %kb = gdn_gpu.convert_layout %k : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #bt>
    %r = gdn.matmul %va, %kb transpose_a mask none
        : tensor<64x64xf32, #at>, tensor<64x128xf32, #bt> -> tensor<64x128xf32, #mma>
    %rb = gdn_gpu.convert_layout %r : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #blocked>
    gdn.tile_store %rb, %out[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    gpu.return
  }
}
}

// -----

#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 32>
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#a = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#bt = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = true>>
module attributes {gpu.container_module} {
gpu.module @k {
  // A transposed bf16 operand whose rows are narrower than 128 bytes (N =
  // 32: 64 bytes) cannot be staged MN-major: it is transposed into a
  // K-major buffer one element at a time and read without the transpose
  // bit, as before.
  // CHECK-LABEL: gpu.func @narrow_transposed
  // CHECK: memref.store {{.*}} : memref<2048xbf16, #gpu.address_space<workgroup>>
  // CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
  // CHECK-NOT: nvvm.wgmma.mma_async
  // TF32-LABEL: gpu.func @narrow_transposed
  // TF32-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
  gpu.func @narrow_transposed(%am: memref<64x64xf32>, %bm: memref<64x32xf32>, %out: memref<64x32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %a = gdn.tile_load %am[%c0, %c0] dims [0, 1] : memref<64x64xf32> -> tensor<64x64xf32, #blocked>
    %b = gdn.tile_load %bm[%c0, %c0] dims [0, 1] : memref<64x32xf32> -> tensor<64x32xf32, #blocked>
    %as = gdn_gpu.convert_layout %a : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #a>
    %bs = gdn_gpu.convert_layout %b : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #bt>
    %r = gdn.matmul %as, %bs mask none
        : tensor<64x64xf32, #a>, tensor<64x32xf32, #bt> -> tensor<64x32xf32, #mma>
    %rb = gdn_gpu.convert_layout %r : tensor<64x32xf32, #mma> -> tensor<64x32xf32, #blocked>
    gdn.tile_store %rb, %out[%c0, %c0] dims [0, 1] : tensor<64x32xf32, #blocked>, memref<64x32xf32>
    gpu.return
  }
}
}

// -----

#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 2], instrN = 64>
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#a = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#at = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = true>>
#b = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#bt = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = true>>
module attributes {gpu.container_module} {
gpu.module @k {
  // A matmul's result staged in bf16 as the next matmul's operand, K-major
  // (as A) and MN-major (as a transposed B): its registers leave with
  // stmatrix.x4, eight (four packed bf16 pairs) a store, 32 registers a
  // thread: four stores, no 4-byte stores. Both stagings hold the tile's
  // rows as they are, so the second reads the first one's buffer and
  // stores nothing. tf32 keeps plain stores (stmatrix moves 16-bit elements
  // only) and transposes the B operand on the way: two buffers there.
  // CHECK-LABEL: gpu.func @accumulator_operands
  // CHECK-NOT: vector.store {{.*}}, vector<2xbf16>
  // CHECK-COUNT-4: nvvm.stmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: nvvm.fence.proxy
  // CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
  // CHECK-NOT: vector.store {{.*}}, vector<2xbf16>
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: gpu.return
  // TF32-LABEL: gpu.func @accumulator_operands
  // TF32-NOT: nvvm.stmatrix
  // TF32: gpu.return
  gpu.func @accumulator_operands(%qm: memref<64x128xf32>, %vm: memref<128x128xf32>,
                                 %wm: memref<64x64xf32>, %o1: memref<64x128xf32>,
                                 %o2: memref<64x128xf32>) kernel {
    %c0 = arith.constant 0 : index
    %q = gdn.tile_load %qm[%c0, %c0] dims [0, 1] : memref<64x128xf32> -> tensor<64x128xf32, #blocked>
    %v = gdn.tile_load %vm[%c0, %c0] dims [0, 1] : memref<128x128xf32> -> tensor<128x128xf32, #blocked>
    %w = gdn.tile_load %wm[%c0, %c0] dims [0, 1] : memref<64x64xf32> -> tensor<64x64xf32, #blocked>
    %qa = gdn_gpu.convert_layout %q : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #a>
    %vb = gdn_gpu.convert_layout %v : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #b>
    %wa = gdn_gpu.convert_layout %w : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #at>
    %r = gdn.matmul %qa, %vb transpose_b mask none
        : tensor<64x128xf32, #a>, tensor<128x128xf32, #b> -> tensor<64x128xf32, #mma>
    %ra = gdn_gpu.convert_layout %r : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #a>
    %r1 = gdn.matmul %ra, %vb transpose_b mask none
        : tensor<64x128xf32, #a>, tensor<128x128xf32, #b> -> tensor<64x128xf32, #mma>
    %rbt = gdn_gpu.convert_layout %r : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #bt>
    %r2 = gdn.matmul %wa, %rbt transpose_a mask none
        : tensor<64x64xf32, #at>, tensor<64x128xf32, #bt> -> tensor<64x128xf32, #mma>
    %s1 = gdn_gpu.convert_layout %r1 : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #blocked>
    gdn.tile_store %s1, %o1[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    %s2 = gdn_gpu.convert_layout %r2 : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #blocked>
    gdn.tile_store %s2, %o2[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>
    gpu.return
  }
}
}

// -----

// A bf16 state pool under an fp32 accumulator tile: each thread's column
// pairs move as 4-byte bf16 pairs, widened after the load and rounded to
// nearest even before the store (32 pairs a thread each way).
#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 2], instrN = 64>
module attributes {gpu.container_module} {
gpu.module @k {
  // CHECK-LABEL: gpu.func @bf16_state_pool
  // CHECK-COUNT-32: vector.load %{{.*}} {alignment = 4 : i64} : memref<?x?x128x128xbf16>, vector<2xbf16>
  // CHECK-NOT: vector.load
  // CHECK: arith.extf %{{.*}} : vector<2xbf16> to vector<2xf32>
  // CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
  // CHECK: vector.store %{{.*}} {alignment = 4 : i64} : memref<?x?x128x128xbf16>, vector<2xbf16>
  // CHECK-NOT: memref<?x?x128x128xf32>
  // CHECK: gpu.return
  gpu.func @bf16_state_pool(%spool: memref<?x?x128x128xbf16>, %pool: memref<?x?x128x128xbf16>,
                            %page: index) kernel {
    %c0 = arith.constant 0 : index
    %m = gdn.state_load %spool[%page, %c0, %c0] : memref<?x?x128x128xbf16> -> tensor<128x128xf32, #mma>
    gdn.state_store %m, %pool[%page, %c0, %c0] : tensor<128x128xf32, #mma>, memref<?x?x128x128xbf16>
    gpu.return
  }
}
}
