// RUN: gdn-opt %s --convert-gdn-to-linalg -split-input-file | FileCheck %s
// Every gdn compute op leaves; what replaces it is checked per op.

// CHECK-LABEL: func @tile_load_masked
// CHECK: tensor.generate
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: memref.load
// CHECK: } else {
// CHECK: arith.constant 0.000000e+00 : bf16
// CHECK-NOT: gdn.
func.func @tile_load_masked(%m: memref<?x?x128xbf16>, %t: index, %h: index, %n: index) -> tensor<64x128xbf16> {
  %c0 = arith.constant 0 : index
  %r = gdn.tile_load %m[%t, %h, %c0] dims [0, 2] rows %n : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  return %r : tensor<64x128xbf16>
}

// -----

// The store writes rows [0, n) only, as a parallel loop nest.
// CHECK-LABEL: func @tile_store_masked
// CHECK-SAME: %[[N:[a-z0-9]+]]: index)
// CHECK: scf.forall (%[[R:.*]], %[[C:.*]]) in (%[[N]], 128)
// CHECK: tensor.extract %{{.*}}[%[[R]], %[[C]]]
// CHECK: memref.store
func.func @tile_store_masked(%v: tensor<64x128xf32>, %m: memref<?x?x128xf32>, %t: index, %h: index, %n: index) {
  %c0 = arith.constant 0 : index
  gdn.tile_store %v, %m[%t, %h, %c0] dims [0, 2] rows %n : tensor<64x128xf32>, memref<?x?x128xf32>
  return
}

// -----

// A head size of 100 in a 128-wide tile: columns from 100 on are padding,
// read as zero (beside the ragged rows) and never stored.
// CHECK-LABEL: func @tile_padded
// CHECK-SAME: %[[N:[a-z0-9]+]]: index)
// CHECK: tensor.generate
// CHECK: %[[ROW:.*]] = arith.cmpi ult, %{{.*}}, %[[N]]
// CHECK: %[[COL:.*]] = arith.cmpi ult, %{{.*}}, %c100
// CHECK: %[[IN:.*]] = arith.andi %[[ROW]], %[[COL]]
// CHECK: scf.if %[[IN]]
// CHECK: memref.load
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (%[[N]], 128)
// CHECK: %[[SIN:.*]] = arith.cmpi ult, %{{.*}}, %c100
// CHECK: scf.if %[[SIN]]
// CHECK: memref.store
func.func @tile_padded(%m: memref<?x?x100xbf16>, %t: index, %h: index, %n: index) {
  %c0 = arith.constant 0 : index
  %r = gdn.tile_load %m[%t, %h, %c0] dims [0, 2] rows %n : memref<?x?x100xbf16> -> tensor<64x128xbf16>
  gdn.tile_store %r, %m[%t, %h, %c0] dims [0, 2] rows %n : tensor<64x128xbf16>, memref<?x?x100xbf16>
  return
}

// -----

// A tile that divides its memref dimension has no padding to check.
// CHECK-LABEL: func @tile_divides
// CHECK-NOT: arith.cmpi
// CHECK-NOT: scf.if
// CHECK: return
func.func @tile_divides(%m: memref<?x?x128x256xf32>, %p: index, %h: index, %r: index) -> tensor<64x128xf32> {
  %t = gdn.state_load %m[%p, %h, %r] : memref<?x?x128x256xf32> -> tensor<64x256xf32>
  %x = tensor.extract_slice %t[0, 0] [64, 128] [1, 1] : tensor<64x256xf32> to tensor<64x128xf32>
  return %x : tensor<64x128xf32>
}

// -----

// CHECK-LABEL: func @mask_rows
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.cmpi ult
// CHECK: arith.select
func.func @mask_rows(%v: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %r = gdn.mask_rows %v, %n : tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// Raw gate: -exp(A_log) * softplus(a + dt_bias), softplus linear above 20.
// CHECK-LABEL: func @gate_raw
// CHECK: %[[E:.*]] = math.exp %{{.*}} : f32
// CHECK: %[[NEG:.*]] = arith.negf %[[E]]
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: arith.cmpf ogt
// CHECK: math.exp
// CHECK: math.log1p
// CHECK: arith.select
// CHECK: arith.mulf %[[NEG]]
func.func @gate_raw(%a: tensor<64xf32>, %alog: f32, %dtb: f32) -> tensor<64xf32> {
  %g = gdn.gate raw %a A_log(%alog) dt_bias(%dtb) : tensor<64xf32>
  return %g : tensor<64xf32>
}

// -----

// CHECK-LABEL: func @gate_log
// CHECK-SAME: (%[[A:.*]]: tensor<64xf32>)
// CHECK-NEXT: return %[[A]]
func.func @gate_log(%a: tensor<64xf32>) -> tensor<64xf32> {
  %g = gdn.gate log %a : tensor<64xf32>
  return %g : tensor<64xf32>
}

// -----

// CHECK-LABEL: func @gate_linear
// CHECK: linalg.generic
// CHECK: %[[L:.*]] = math.log
// CHECK: arith.maximumf %[[L]], %{{.*}}
func.func @gate_linear(%a: tensor<64xf32>) -> tensor<64xf32> {
  %g = gdn.gate linear %a : tensor<64xf32>
  return %g : tensor<64xf32>
}

// -----

// CHECK-LABEL: func @sigmoid
// CHECK: linalg.generic
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
func.func @sigmoid(%a: tensor<64xf32>) -> tensor<64xf32> {
  %g = gdn.sigmoid %a : tensor<64xf32>
  return %g : tensor<64xf32>
}

// -----

// CHECK-LABEL: func @cumsum
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[S:.*]] = %{{.*}}) -> (tensor<64xf32>, f32)
// CHECK: tensor.extract
// CHECK: arith.addf %[[S]]
// CHECK: tensor.insert
func.func @cumsum(%a: tensor<64xf32>) -> tensor<64xf32> {
  %g = gdn.cumsum %a : tensor<64xf32>
  return %g : tensor<64xf32>
}

// -----

// CHECK-LABEL: func @l2norm
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.constant 9.99999997E-7 : f32
// CHECK: math.rsqrt
func.func @l2norm(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %n = gdn.l2norm %x : tensor<64x128xf32>
  return %n : tensor<64x128xf32>
}

// -----

// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @scale_rows
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[ROW]], #{{.*}}]
func.func @scale_rows(%x: tensor<64x128xf32>, %s: tensor<64xf32>) -> tensor<64x128xf32> {
  %r = gdn.scale_rows %x, %s : tensor<64x128xf32>, tensor<64xf32>
  return %r : tensor<64x128xf32>
}

// -----

// A x B^T with a strict mask and decay: a contraction over d2 with the rhs
// read as (j, k), then a masking generic with exp(gamma_i - gamma_j).
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func @matmul_strict_decay
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.extf
// CHECK: linalg.generic
// CHECK: arith.cmpi ult
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.select
func.func @matmul_strict_decay(%k: tensor<64x128xbf16>, %g: tensor<64xf32>) -> tensor<64x64xf32> {
  %a = gdn.matmul %k, %k transpose_b mask strict decay(%g : tensor<64xf32>) : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xf32>
  return %a : tensor<64x64xf32>
}

// -----

// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func @matmul_transpose_a
// CHECK: linalg.generic {indexing_maps = [#[[LHS]],
// CHECK-NOT: linalg.index
func.func @matmul_transpose_a(%v: tensor<64x128xf32>, %k: tensor<64x128xf32>) -> tensor<128x128xf32> {
  %a = gdn.matmul %v, %k transpose_a mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  return %a : tensor<128x128xf32>
}

// -----

// The accumulator is added after the product, whose contraction starts at
// zero.
// CHECK-LABEL: func @matmul_acc
// CHECK-SAME: %[[C:[^:]*]]: tensor<128x128xf32>
// CHECK: linalg.fill
// CHECK: %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}} ins(%[[C]], %[[P]] : tensor<128x128xf32>, tensor<128x128xf32>)
// CHECK: arith.addf
func.func @matmul_acc(%v: tensor<64x128xf32>, %k: tensor<64x128xf32>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %a = gdn.matmul %v, %k transpose_a mask none acc(%c : tensor<128x128xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  return %a : tensor<128x128xf32>
}

// -----

// CHECK-LABEL: func @matmul_causal
// CHECK: arith.cmpi ule
// CHECK-NOT: math.exp
func.func @matmul_causal(%q: tensor<64x128xf32>, %k: tensor<64x128xf32>) -> tensor<64x64xf32> {
  %a = gdn.matmul %q, %k transpose_b mask causal : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return %a : tensor<64x64xf32>
}

// -----

// Forward substitution, one row at a time: row i = e_i - A[i, :i] Tm[:i, :]
// as a masked vector-matrix product, inserted into Tm.
// CHECK-LABEL: func @tri_inverse
// CHECK: linalg.generic
// CHECK: arith.cmpi eq
// CHECK: scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %c64
// CHECK: tensor.extract_slice %{{.*}}[%[[I]], 0] [1, 64] [1, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpi ult, %{{.*}}, %[[I]]
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[I]], 0] [1, 64] [1, 1]
func.func @tri_inverse(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %t = gdn.tri_inverse %a : tensor<64x64xf32>
  return %t : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func @paged_state
// CHECK: %[[START:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK: arith.index_cast %[[START]]
// CHECK: %[[ID:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK: arith.index_cast %[[ID]]
// CHECK: tensor.generate
// CHECK: memref.load %{{.*}} : memref<?x?x128x64xf32>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (128, 64)
// CHECK: memref.store %{{.*}} : memref<?x?x128x64xf32>
func.func @paged_state(%pool: memref<?x?x128x64xf32>, %pi: memref<?xi32>, %pp: memref<?xi64>, %b: index, %n: index, %hv: index) {
  %page = gdn.page_lookup %pi, %pp[%b, %n] : memref<?xi32>, memref<?xi64>
  %m = gdn.state_load %pool[%page, %hv] : memref<?x?x128x64xf32> -> tensor<128x64xf32>
  gdn.state_store %m, %pool[%page, %hv] : tensor<128x64xf32>, memref<?x?x128x64xf32>
  return
}

// -----

// A bf16 state pool: read into the fp32 tile widened, written back rounded
// to nearest even, element by element.
// CHECK-LABEL: func @bf16_pool
// CHECK: tensor.generate
// CHECK: %[[RAW:.*]] = memref.load %{{.*}} : memref<?x?x128x64xbf16>
// CHECK: arith.extf %[[RAW]] : bf16 to f32
// CHECK: scf.forall
// CHECK: %[[WIDE:.*]] = tensor.extract
// CHECK: %[[NARROW:.*]] = arith.truncf %[[WIDE]] : f32 to bf16
// CHECK: memref.store %[[NARROW]], %{{.*}} : memref<?x?x128x64xbf16>
func.func @bf16_pool(%pool: memref<?x?x128x64xbf16>, %page: index, %hv: index) {
  %m = gdn.state_load %pool[%page, %hv] : memref<?x?x128x64xbf16> -> tensor<128x64xf32>
  gdn.state_store %m, %pool[%page, %hv] : tensor<128x64xf32>, memref<?x?x128x64xbf16>
  return
}
