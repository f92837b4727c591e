// RUN: not gdn-opt %s -split-input-file --gdn-gpu-lower-tiles=mma-precision=bf16 2>&1 | FileCheck %s

// A prefetch written into a kernel whose block size is not known: the
// lowering cannot spread its lines over the threads and says so.
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @unknown_block(%q: memref<?x?x128xbf16>, %t: index, %h: index) kernel {
    %c0 = arith.constant 0 : index
    // CHECK: error: 'gdn.tile_prefetch' op needs a gpu.func with a known one-dimensional block size (known_block_size = array<i32: N, 1, 1>) to spread its lines over
    gdn.tile_prefetch %q[%t, %h, %c0] dims [0, 2] shape [64, 128] : memref<?x?x128xbf16>
    gpu.return
  }
}
}

// -----

// A two-dimensional block: the same.
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @flat_only(%q: memref<?x?x128xbf16>, %t: index, %h: index) kernel
      attributes {known_block_size = array<i32: 128, 2, 1>} {
    %c0 = arith.constant 0 : index
    // CHECK: error: 'gdn.tile_prefetch' op needs a gpu.func with a known one-dimensional block size
    gdn.tile_prefetch %q[%t, %h, %c0] dims [0, 2] shape [64, 128] : memref<?x?x128xbf16>
    gpu.return
  }
}
}
