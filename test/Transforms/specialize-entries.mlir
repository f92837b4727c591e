// RUN: gdn-opt %s --gdn-specialize-entries --canonicalize | FileCheck %s

// One copy per flag set, named <entry>_s<i>, with the entry's signature:
// each flag argument is a constant inside (true binds 1, not -1), the
// branches on it fold away, the copy records where it came from and which
// arguments it bound, and the entry keeps its branches. The flag marks
// are dropped.
// CHECK-LABEL: func.func @entry(
// CHECK-SAME: %[[D:[a-z0-9]+]]: index, %[[L:[a-z0-9]+]]: i1)
// CHECK-NOT: gdn.specialize
// CHECK-NOT: gdn.flag
// CHECK: scf.index_switch %[[D]]
// CHECK: scf.if %[[L]]
// CHECK-LABEL: func.func @entry_s0(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: i1)
// CHECK-SAME: gdn.bound_args = array<i64: 1, 0, 2, 1>
// CHECK-SAME: gdn.specialized_from = "entry"
// CHECK-NOT: scf.index_switch
// CHECK-NOT: scf.if
// CHECK: math.exp
// CHECK-NOT: scf.if
// CHECK: arith.negf
// CHECK-NOT: scf.
// CHECK: return
// CHECK-LABEL: func.func @entry_s1(
// CHECK-SAME: gdn.bound_args = array<i64: 1, 2>
// CHECK-NOT: scf.index_switch
// CHECK-NOT: math.exp
// CHECK: scf.if
// CHECK-NOT: scf.index_switch
// CHECK: return
func.func @entry(%x: f32, %domain: index {gdn.flag = "domain"},
                 %logit: i1 {gdn.flag = "logit"}) -> f32
    attributes {gdn.specialize = [{domain = 0 : index, logit = true}, {domain = 2 : index}]} {
  %g = scf.index_switch %domain -> f32
  case 0 {
    %e = math.exp %x : f32
    scf.yield %e : f32
  }
  default {
    scf.yield %x : f32
  }
  %r = scf.if %logit -> f32 {
    %n = arith.negf %g : f32
    scf.yield %n : f32
  } else {
    scf.yield %g : f32
  }
  return %r : f32
}
