// RUN: gdn-opt %s -split-input-file --gdn-gpu-remove-layout-conversions | FileCheck %s

#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>
#a = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma, shared = #shared>
#b = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma, shared = #shared>

// The serial step as gdn-gpu-assign-layouts leaves it. Afterwards the state
// is carried in the accumulator layout (converted once before the loop and
// once after it), the decay and the update run on accumulator fragments,
// the splat is made in the accumulator layout, Vn = U - W M^T is computed
// there, and the only conversions left in the loop feed the tensor cores.
// CHECK-DAG: #[[B2:.*]] = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B1:.*]] = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[MMA:.*]] = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
// CHECK-DAG: #[[OPA:.*]] = #gdn_gpu.dot_operand<opIdx = 0, parent = #[[MMA]]
// CHECK-DAG: #[[OPB:.*]] = #gdn_gpu.dot_operand<opIdx = 1, parent = #[[MMA]]
// CHECK-LABEL: func.func @step
// CHECK: %[[INIT:.*]] = gdn_gpu.convert_layout %{{.*}} : tensor<128x128xf32, #[[B2]]> -> tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[M:.*]] = %[[INIT]]) -> (tensor<128x128xf32, #[[MMA]]>)
// CHECK: %[[MB:.*]] = gdn_gpu.convert_layout %[[M]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #[[OPB]]>
// CHECK: %[[WM:.*]] = gdn.matmul %{{.*}}, %[[MB]] transpose_b
// CHECK: %[[U:.*]] = gdn_gpu.convert_layout %{{.*}} : tensor<64x128xf32, #[[B2]]> -> tensor<64x128xf32, #[[MMA]]>
// CHECK: %[[VN:.*]] = arith.subf %[[U]], %[[WM]] : tensor<64x128xf32, #[[MMA]]>
// CHECK: %[[VNA:.*]] = gdn_gpu.convert_layout %[[VN]] : tensor<64x128xf32, #[[MMA]]> -> tensor<64x128xf32, #[[OPA]]>
// CHECK: %[[UPD:.*]] = gdn.matmul %[[VNA]], %{{.*}} transpose_a
// CHECK: %[[GL:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<64xf32, #[[B1]]>
// CHECK: %[[EGL:.*]] = math.exp %[[GL]] : f32
// CHECK: %[[SPLAT:.*]] = tensor.splat %[[EGL]] : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[MD:.*]] = arith.mulf %[[M]], %[[SPLAT]] : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[M1:.*]] = arith.addf %[[MD]], %[[UPD]] : tensor<128x128xf32, #[[MMA]]>
// CHECK-NEXT: scf.yield %[[M1]] : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[OUT:.*]] = gdn_gpu.convert_layout %[[LOOP]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #[[B2]]>
// CHECK-NEXT: return %[[OUT]]
func.func @step(%w: tensor<64x128xf32, #blocked>, %u: tensor<64x128xf32, #blocked>,
                %kd: tensor<64x128xf32, #blocked>, %gamma: tensor<64xf32, #blocked1>,
                %m_in: tensor<128x128xf32, #blocked>, %n: index) -> tensor<128x128xf32, #blocked> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %m_in) -> (tensor<128x128xf32, #blocked>) {
    %wa = gdn_gpu.convert_layout %w : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #a>
    %mb = gdn_gpu.convert_layout %m : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #b>
    %wm = gdn.matmul %wa, %mb transpose_b mask none : tensor<64x128xf32, #a>, tensor<128x128xf32, #b> -> tensor<64x128xf32, #mma>
    %wm_b = gdn_gpu.convert_layout %wm : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #blocked>
    %vn = arith.subf %u, %wm_b : tensor<64x128xf32, #blocked>
    %vna = gdn_gpu.convert_layout %vn : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #a>
    %kdb = gdn_gpu.convert_layout %kd : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #b>
    %upd = gdn.matmul %vna, %kdb transpose_a mask none : tensor<64x128xf32, #a>, tensor<64x128xf32, #b> -> tensor<128x128xf32, #mma>
    %upd_b = gdn_gpu.convert_layout %upd : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #blocked>
    %gl = tensor.extract %gamma[%c63] : tensor<64xf32, #blocked1>
    %egl = math.exp %gl : f32
    %egls = tensor.splat %egl : tensor<128x128xf32, #blocked>
    %md = arith.mulf %m, %egls : tensor<128x128xf32, #blocked>
    %m1 = arith.addf %md, %upd_b : tensor<128x128xf32, #blocked>
    scf.yield %m1 : tensor<128x128xf32, #blocked>
  }
  return %r : tensor<128x128xf32, #blocked>
}

// -----

#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

// A row scaling of an accumulator scales it in place, the vector in the
// accumulator's row slice; a constant is made in the accumulator layout; a
// tile converted out of a blocked layout is left alone (layouts only move
// towards accumulators).
// CHECK-DAG: #[[B2:.*]] = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B1:.*]] = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[MMA64:.*]] = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
// CHECK-DAG: #[[ROWS:.*]] = #gdn_gpu.slice<dim = 1, parent = #[[MMA64]]>
// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%[[ACC:.*]]: tensor<64x64xf32, #[[MMA64]]>, %[[BETA:.*]]: tensor<64xf32, #[[B1]]>, %[[X:.*]]: tensor<64x64xf32, #[[B2]]>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<64x64xf32, #[[MMA64]]>
// CHECK-DAG: %[[BR:.*]] = gdn_gpu.convert_layout %[[BETA]] : tensor<64xf32, #[[B1]]> -> tensor<64xf32, #[[ROWS]]>
// CHECK: %[[S:.*]] = gdn.scale_rows %[[ACC]], %[[BR]] : tensor<64x64xf32, #[[MMA64]]>, tensor<64xf32, #[[ROWS]]>
// CHECK: %[[P:.*]] = arith.addf %[[S]], %[[ONE]] : tensor<64x64xf32, #[[MMA64]]>
// CHECK: %[[PB:.*]] = gdn_gpu.convert_layout %[[P]] : tensor<64x64xf32, #[[MMA64]]> -> tensor<64x64xf32, #[[B2]]>
// CHECK: %[[XM:.*]] = gdn_gpu.convert_layout %[[X]] : tensor<64x64xf32, #[[B2]]> -> tensor<64x64xf32, #[[MMA64]]>
// CHECK: %[[Q:.*]] = arith.mulf %[[XM]], %[[XM]] : tensor<64x64xf32, #[[MMA64]]>
// CHECK: return %[[PB]], %[[Q]]
func.func @scale(%acc: tensor<64x64xf32, #mma>, %beta: tensor<64xf32, #blocked1>,
                 %x: tensor<64x64xf32, #blocked>)
    -> (tensor<64x64xf32, #blocked>, tensor<64x64xf32, #mma>) {
  %one = arith.constant dense<1.0> : tensor<64x64xf32, #blocked>
  %accb = gdn_gpu.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %s = gdn.scale_rows %accb, %beta : tensor<64x64xf32, #blocked>, tensor<64xf32, #blocked1>
  %p = arith.addf %s, %one : tensor<64x64xf32, #blocked>
  %xm = gdn_gpu.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  %q = arith.mulf %xm, %xm : tensor<64x64xf32, #mma>
  return %p, %q : tensor<64x64xf32, #blocked>, tensor<64x64xf32, #mma>
}

// -----

// Stores of a tile converted out of the accumulator store the accumulator's
// registers; a store of a tile converted out of the blocked layout keeps
// its conversion (only accumulator sources are taken).
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#other = #gdn_gpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
// CHECK-LABEL: func.func @stores
// CHECK-NOT: gdn_gpu.convert_layout %arg0
// CHECK: gdn.state_store %arg0, %arg3[%arg5, %arg5, %arg5] : tensor<128x128xf32, #[[MMA:.*]]>, memref<?x?x128x128xf32>
// CHECK: gdn.tile_store %arg1, %arg4[%arg5, %arg5, %arg5] dims [0, 2] rows %arg5 : tensor<64x128xbf16, #[[MMA]]>, memref<?x?x128xbf16>
// CHECK: %[[KEPT:.*]] = gdn_gpu.convert_layout %arg2
// CHECK: gdn.tile_store %[[KEPT]]
func.func @stores(%m: tensor<128x128xf32, #mma>, %o: tensor<64x128xbf16, #mma>,
                  %x: tensor<64x128xbf16, #blocked>, %pool: memref<?x?x128x128xf32>,
                  %om: memref<?x?x128xbf16>, %i: index) {
  %mb = gdn_gpu.convert_layout %m : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #blocked>
  gdn.state_store %mb, %pool[%i, %i, %i] : tensor<128x128xf32, #blocked>, memref<?x?x128x128xf32>
  %ob = gdn_gpu.convert_layout %o : tensor<64x128xbf16, #mma> -> tensor<64x128xbf16, #blocked>
  gdn.tile_store %ob, %om[%i, %i, %i] dims [0, 2] rows %i : tensor<64x128xbf16, #blocked>, memref<?x?x128xbf16>
  %xo = gdn_gpu.convert_layout %x : tensor<64x128xbf16, #blocked> -> tensor<64x128xbf16, #other>
  gdn.tile_store %xo, %om[%i, %i, %i] dims [0, 2] rows %i : tensor<64x128xbf16, #other>, memref<?x?x128xbf16>
  return
}

// -----

// A tile loaded only to be converted into an accumulator is loaded in the
// accumulator layout: directly (R), and through a widening cast and a
// loop-carried prefetch (U, as split-seq's replay carries it), where the
// load before the loop and the one for the next iteration both change. A
// load with another use, and a carried tile whose next value is not a load,
// keep their conversions.
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
// CHECK-DAG: #[[B2:.*]] = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[MMA:.*]] = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
// CHECK-LABEL: func.func @loads
// CHECK: %[[U0:.*]] = gdn.tile_load %arg0[%{{.*}}] dims [1, 2] : memref<?x64x128xbf16> -> tensor<64x128xbf16, #[[MMA]]>
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %arg2, %[[U:.*]] = %[[U0]], %[[X:.*]] = %{{.*}}) -> (tensor<64x128xf32, #[[MMA]]>, tensor<64x128xbf16, #[[MMA]]>, tensor<64x128xf32, #[[B2]]>)
// CHECK: %[[NEXT:.*]] = gdn.tile_load %arg0[%{{.*}}] dims [1, 2] : memref<?x64x128xbf16> -> tensor<64x128xbf16, #[[MMA]]>
// CHECK: %[[R:.*]] = gdn.tile_load %arg1[%{{.*}}] dims [1, 2] : memref<?x64x128xf32> -> tensor<64x128xf32, #[[MMA]]>
// CHECK: %[[UF:.*]] = arith.extf %[[U]] : tensor<64x128xbf16, #[[MMA]]> to tensor<64x128xf32, #[[MMA]]>
// CHECK: arith.subf %[[UF]], %[[A]]
// CHECK: arith.addf %{{.*}}, %[[R]]
// CHECK: %[[SHARED:.*]] = gdn.tile_load %arg1[%{{.*}}] dims [1, 2] : memref<?x64x128xf32> -> tensor<64x128xf32, #[[B2]]>
// CHECK: gdn_gpu.convert_layout %[[SHARED]] : tensor<64x128xf32, #[[B2]]> -> tensor<64x128xf32, #[[MMA]]>
// CHECK: gdn_gpu.convert_layout %[[X]] : tensor<64x128xf32, #[[B2]]> -> tensor<64x128xf32, #[[MMA]]>
// CHECK: scf.yield %{{.*}}, %[[NEXT]], %{{.*}} : tensor<64x128xf32, #[[MMA]]>, tensor<64x128xbf16, #[[MMA]]>, tensor<64x128xf32, #[[B2]]>
func.func @loads(%ws: memref<?x64x128xbf16>, %rws: memref<?x64x128xf32>,
                 %acc: tensor<64x128xf32, #mma>, %x0: tensor<64x128xf32, #blocked>,
                 %n: index) -> (tensor<64x128xf32, #mma>, tensor<64x128xf32, #blocked>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %u0 = gdn.tile_load %ws[%c0, %c0, %c0] dims [1, 2] : memref<?x64x128xbf16> -> tensor<64x128xbf16, #blocked>
  %res:3 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %acc, %u = %u0, %x = %x0)
      -> (tensor<64x128xf32, #mma>, tensor<64x128xbf16, #blocked>, tensor<64x128xf32, #blocked>) {
    %next = gdn.tile_load %ws[%i, %c0, %c0] dims [1, 2] : memref<?x64x128xbf16> -> tensor<64x128xbf16, #blocked>
    %r = gdn.tile_load %rws[%i, %c0, %c0] dims [1, 2] : memref<?x64x128xf32> -> tensor<64x128xf32, #blocked>
    %uf = arith.extf %u : tensor<64x128xbf16, #blocked> to tensor<64x128xf32, #blocked>
    %um = gdn_gpu.convert_layout %uf : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #mma>
    %d = arith.subf %um, %a : tensor<64x128xf32, #mma>
    %rm = gdn_gpu.convert_layout %r : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #mma>
    %e = arith.addf %d, %rm : tensor<64x128xf32, #mma>
    %shared = gdn.tile_load %rws[%c0, %c0, %c0] dims [1, 2] : memref<?x64x128xf32> -> tensor<64x128xf32, #blocked>
    %sm = gdn_gpu.convert_layout %shared : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #mma>
    %f = arith.addf %e, %sm : tensor<64x128xf32, #mma>
    %xm = gdn_gpu.convert_layout %x : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #mma>
    %g = arith.addf %f, %xm : tensor<64x128xf32, #mma>
    %x1 = arith.mulf %shared, %shared : tensor<64x128xf32, #blocked>
    scf.yield %g, %next, %x1 : tensor<64x128xf32, #mma>, tensor<64x128xbf16, #blocked>, tensor<64x128xf32, #blocked>
  }
  return %res#0, %res#2 : tensor<64x128xf32, #mma>, tensor<64x128xf32, #blocked>
}
