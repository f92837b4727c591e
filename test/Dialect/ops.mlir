// RUN: gdn-opt %s | FileCheck %s
// Round trip: print, parse the printed form again, and print it identically.
// RUN: gdn-opt %s | gdn-opt | FileCheck %s
// RUN: gdn-opt %s --mlir-print-op-generic | gdn-opt | FileCheck %s

// CHECK-LABEL: func @program_ids
func.func @program_ids() -> (index, index, index) {
  // CHECK: gdn.program_id 0
  // CHECK: gdn.program_id 1
  // CHECK: gdn.program_id 2
  %0 = gdn.program_id 0
  %1 = gdn.program_id 1
  %2 = gdn.program_id 2
  return %0, %1, %2 : index, index, index
}

// CHECK-LABEL: func @tiles
func.func @tiles(%q: memref<?x?x128xbf16>, %g: memref<?x?xf32>, %t: index,
                 %h: index, %n: index) {
  %c0 = arith.constant 0 : index
  // CHECK: gdn.tile_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] dims [0, 2] rows %{{.*}} : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  %qt = gdn.tile_load %q[%t, %h, %c0] dims [0, 2] rows %n : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  // CHECK: gdn.tile_load %{{.*}}[%{{.*}}, %{{.*}}] dims [0] : memref<?x?xf32> -> tensor<64xf32>
  %gt = gdn.tile_load %g[%t, %h] dims [0] : memref<?x?xf32> -> tensor<64xf32>
  // CHECK: gdn.tile_prefetch %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] dims [0, 2] shape [64, 128] rows %{{.*}} : memref<?x?x128xbf16>
  gdn.tile_prefetch %q[%t, %h, %c0] dims [0, 2] shape [64, 128] rows %n : memref<?x?x128xbf16>
  // CHECK: gdn.tile_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] dims [0, 2] rows %{{.*}} : tensor<64x128xbf16>, memref<?x?x128xbf16>
  gdn.tile_store %qt, %q[%t, %h, %c0] dims [0, 2] rows %n : tensor<64x128xbf16>, memref<?x?x128xbf16>
  // CHECK: gdn.tile_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] dims [0] : tensor<64xf32>, memref<?x?xf32>
  gdn.tile_store %gt, %g[%t, %h] dims [0] : tensor<64xf32>, memref<?x?xf32>
  // CHECK: gdn.mask_rows %{{.*}}, %{{.*}} : tensor<64xf32>
  %m = gdn.mask_rows %gt, %n : tensor<64xf32>
  return
}

// CHECK-LABEL: func @gates
func.func @gates(%a: tensor<64xf32>, %alog: f32, %dtb: f32) -> tensor<64xf32> {
  // CHECK: gdn.gate raw %{{.*}} A_log(%{{.*}}) dt_bias(%{{.*}}) : tensor<64xf32>
  %g0 = gdn.gate raw %a A_log(%alog) dt_bias(%dtb) : tensor<64xf32>
  // CHECK: gdn.gate log %{{.*}} : tensor<64xf32>
  %g1 = gdn.gate log %g0 : tensor<64xf32>
  // CHECK: gdn.gate linear %{{.*}} : tensor<64xf32>
  %g2 = gdn.gate linear %g1 : tensor<64xf32>
  // CHECK: gdn.sigmoid %{{.*}} : tensor<64xf32>
  %b = gdn.sigmoid %g2 : tensor<64xf32>
  // CHECK: gdn.cumsum %{{.*}} : tensor<64xf32>
  %c = gdn.cumsum %b : tensor<64xf32>
  return %c : tensor<64xf32>
}

// CHECK-LABEL: func @norms
func.func @norms(%x: tensor<64x128xf32>, %s: tensor<64xf32>) -> tensor<64x128xf32> {
  // CHECK: gdn.l2norm %{{.*}} : tensor<64x128xf32>
  %n = gdn.l2norm %x : tensor<64x128xf32>
  // CHECK: gdn.l2norm %{{.*}} {eps = 1.000000e-03 : f32} : tensor<64x128xf32>
  %n2 = gdn.l2norm %n {eps = 1.0e-3 : f32} : tensor<64x128xf32>
  // CHECK: gdn.scale_rows %{{.*}}, %{{.*}} : tensor<64x128xf32>, tensor<64xf32>
  %r = gdn.scale_rows %n2, %s : tensor<64x128xf32>, tensor<64xf32>
  return %r : tensor<64x128xf32>
}

// CHECK-LABEL: func @matmuls
func.func @matmuls(%k: tensor<64x128xf32>, %kb: tensor<64x128xbf16>,
                   %m: tensor<128x128xf32>, %gamma: tensor<64xf32>) {
  // CHECK: gdn.matmul %{{.*}}, %{{.*}} transpose_b mask strict decay(%{{.*}} : tensor<64xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  %a = gdn.matmul %k, %k transpose_b mask strict decay(%gamma : tensor<64xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  // CHECK: gdn.matmul %{{.*}}, %{{.*}} transpose_b mask causal : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xf32>
  %qk = gdn.matmul %kb, %kb transpose_b mask causal : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xf32>
  // CHECK: gdn.matmul %{{.*}}, %{{.*}} transpose_a mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  %up = gdn.matmul %k, %k transpose_a mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  // CHECK: gdn.matmul %{{.*}}, %{{.*}} mask none : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %p = gdn.matmul %k, %m mask none : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  // CHECK: gdn.tri_inverse %{{.*}} : tensor<64x64xf32>
  %t = gdn.tri_inverse %a : tensor<64x64xf32>
  return
}

// CHECK-LABEL: func @state
func.func @state(%pool: memref<?x?x128x64xf32>, %pi: memref<?xi32>,
                 %pp: memref<?xi64>, %b: index, %n: index, %hv: index) {
  // CHECK: gdn.page_lookup %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<?xi32>, memref<?xi64>
  %page = gdn.page_lookup %pi, %pp[%b, %n] : memref<?xi32>, memref<?xi64>
  // CHECK: gdn.state_load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?x128x64xf32> -> tensor<128x64xf32>
  %m = gdn.state_load %pool[%page, %hv] : memref<?x?x128x64xf32> -> tensor<128x64xf32>
  // CHECK: gdn.state_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<128x64xf32>, memref<?x?x128x64xf32>
  gdn.state_store %m, %pool[%page, %hv] : tensor<128x64xf32>, memref<?x?x128x64xf32>
  // A block of 64 of the 128 state rows, from row %n (a V-split).
  // CHECK: gdn.state_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<?x?x128x64xf32> -> tensor<64x64xf32>
  %half = gdn.state_load %pool[%page, %hv, %n] : memref<?x?x128x64xf32> -> tensor<64x64xf32>
  // CHECK: gdn.state_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<64x64xf32>, memref<?x?x128x64xf32>
  gdn.state_store %half, %pool[%page, %hv, %n] : tensor<64x64xf32>, memref<?x?x128x64xf32>
  return
}
