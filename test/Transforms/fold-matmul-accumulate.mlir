// RUN: gdn-opt %s -split-input-file --gdn-fold-matmul-accumulate | FileCheck %s

// The state update: exp(gamma_last) M + Vn^T Kd, the add in either order.
// CHECK-LABEL: func @state_update
// CHECK-SAME: (%[[VN:.*]]: tensor<64x128xf32>, %[[KD:.*]]: tensor<64x128xf32>, %[[M:.*]]: tensor<128x128xf32>)
// CHECK-NEXT: %[[R:.*]] = gdn.matmul %[[VN]], %[[KD]] transpose_a mask none acc(%[[M]] : tensor<128x128xf32>)
// CHECK-NEXT: %[[R2:.*]] = gdn.matmul %[[VN]], %[[KD]] transpose_a mask none acc(%[[R]] : tensor<128x128xf32>)
// CHECK-NEXT: return %[[R2]]
func.func @state_update(%vn: tensor<64x128xf32>, %kd: tensor<64x128xf32>, %m: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %u = gdn.matmul %vn, %kd transpose_a mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  %s = arith.addf %m, %u : tensor<128x128xf32>
  %u2 = gdn.matmul %vn, %kd transpose_a mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  %s2 = arith.addf %u2, %s : tensor<128x128xf32>
  return %s2 : tensor<128x128xf32>
}

// -----

// Of two products, the later absorbs the earlier (the output's
// Qg M^T + (Q K^T (.) D) Vn).
// CHECK-LABEL: func @two_products
// CHECK: %[[QM:.*]] = gdn.matmul %arg0, %arg1 transpose_b mask none :
// CHECK-NEXT: gdn.matmul %arg2, %arg3 mask none acc(%[[QM]] : tensor<64x128xf32>)
func.func @two_products(%qg: tensor<64x128xf32>, %m: tensor<128x128xf32>, %qk: tensor<64x64xf32>, %vn: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %qm = gdn.matmul %qg, %m transpose_b mask none : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %intra = gdn.matmul %qk, %vn mask none : tensor<64x64xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
  %sum = arith.addf %qm, %intra : tensor<64x128xf32>
  return %sum : tensor<64x128xf32>
}

// -----

// The same with the later product on the left of the add: the later one
// still absorbs the earlier, where it stands (the earlier is not moved past
// it).
// CHECK-LABEL: func @two_products_later_on_the_left
// CHECK: %[[QM:.*]] = gdn.matmul %arg0, %arg1 transpose_b mask none :
// CHECK-NEXT: gdn.matmul %arg2, %arg3 mask none acc(%[[QM]] : tensor<64x128xf32>)
// CHECK-NOT: arith.addf
func.func @two_products_later_on_the_left(%qg: tensor<64x128xf32>, %m: tensor<128x128xf32>, %qk: tensor<64x64xf32>, %vn: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %qm = gdn.matmul %qg, %m transpose_b mask none : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %intra = gdn.matmul %qk, %vn mask none : tensor<64x64xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
  %sum = arith.addf %intra, %qm : tensor<64x128xf32>
  return %sum : tensor<64x128xf32>
}

// -----

// Left alone: a masked product (the mask would apply to the accumulator),
// a product with a second user, a scalar add.
// CHECK-LABEL: func @not_folded
// CHECK-NOT: acc(
// CHECK: gdn.matmul {{.*}} mask causal :
// CHECK-NOT: acc(
// CHECK: arith.addf
// CHECK: arith.addf
// CHECK: arith.addf
func.func @not_folded(%q: tensor<64x128xf32>, %c: tensor<64x64xf32>, %x: f32) -> (tensor<64x64xf32>, tensor<64x64xf32>, f32) {
  %a = gdn.matmul %q, %q transpose_b mask causal : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  %s = arith.addf %c, %a : tensor<64x64xf32>
  %b = gdn.matmul %q, %q transpose_b mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  %t = arith.addf %c, %b : tensor<64x64xf32>
  %u = arith.mulf %b, %t : tensor<64x64xf32>
  %y = arith.addf %x, %x : f32
  return %s, %u, %y : tensor<64x64xf32>, tensor<64x64xf32>, f32
}

// -----

// c defined after the product: the folded matmul goes right after c
// (exp(gamma_last) M is computed after Vn^T Kd in the kernel's step)...
// CHECK-LABEL: func @acc_after_product
// CHECK: %[[C:.*]] = arith.mulf %arg2, %arg2
// CHECK-NEXT: gdn.matmul %arg0, %arg1 transpose_a mask none acc(%[[C]] : tensor<128x128xf32>)
// CHECK-NEXT: return
func.func @acc_after_product(%vn: tensor<64x128xf32>, %kd: tensor<64x128xf32>, %m: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %u = gdn.matmul %vn, %kd transpose_a mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  %c = arith.mulf %m, %m : tensor<128x128xf32>
  %s = arith.addf %c, %u : tensor<128x128xf32>
  return %s : tensor<128x128xf32>
}

// -----

// ...past another matmul too: the product's tile then never lives beside
// c's (split-seq's transition kept U^T Kd in registers across two
// 128 x 128 products and spilled).
// CHECK-LABEL: func @past_a_matmul
// CHECK: %[[MB:.*]] = gdn.matmul %arg2, %arg2 mask none :
// CHECK-NEXT: %[[C:.*]] = arith.mulf %[[MB]], %[[MB]]
// CHECK-NEXT: gdn.matmul %arg0, %arg1 transpose_a mask none acc(%[[C]] : tensor<128x128xf32>)
// CHECK-NOT: arith.addf
func.func @past_a_matmul(%vn: tensor<64x128xf32>, %kd: tensor<64x128xf32>, %m: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %u = gdn.matmul %vn, %kd transpose_a mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  %mb = gdn.matmul %m, %m mask none : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
  %c = arith.mulf %mb, %mb : tensor<128x128xf32>
  %s = arith.addf %c, %u : tensor<128x128xf32>
  return %s : tensor<128x128xf32>
}
