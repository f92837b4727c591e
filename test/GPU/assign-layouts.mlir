// RUN: gdn-opt %s -split-input-file --gdn-gpu-assign-layouts="num-warps=4" | FileCheck %s
// RUN: not gdn-opt %s --gdn-gpu-assign-layouts="num-warps=6" 2>&1 | FileCheck %s --check-prefix=WARPS

// WARPS: num-warps must be a positive multiple of 4 (whole warpgroups), got 6
// RUN: gdn-opt %s -split-input-file --gdn-gpu-assign-layouts="num-warps=8" | FileCheck %s --check-prefix=WG2

// Two warpgroups (num-warps = 8): blocked tiles stack 8 warps along rows; a
// matmul's accumulator has its columns split between the warpgroups.
// WG2-DAG: #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
// WG2-DAG: #[[MMA:.*]] = #gdn_gpu.wgmma<warpsPerCTA = [4, 2], instrN = 32>
// WG2-LABEL: func.func @kkt
// WG2: gdn.matmul {{.*}} -> tensor<64x64xf32, #[[MMA]]>

// Every tile takes the default blocked layout of its rank; a matmul's result
// is the warpgroup-MMA accumulator (instrN = its columns), its operands are
// staged for the tensor cores, its decay vector is the accumulator's row
// slice, and a conversion hands the result back to its users.
// CHECK-DAG: #[[B2:.*]] = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B1:.*]] = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[MMA64:.*]] = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
// CHECK-DAG: #[[SHARED:.*]] = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>
// CHECK-NOT: transposed = true
// CHECK-DAG: #[[A64:.*]] = #gdn_gpu.dot_operand<opIdx = 0, parent = #[[MMA64]], shared = #[[SHARED]]>
// CHECK-DAG: #[[B64:.*]] = #gdn_gpu.dot_operand<opIdx = 1, parent = #[[MMA64]], shared = #[[SHARED]]>
// CHECK-DAG: #[[ROWS:.*]] = #gdn_gpu.slice<dim = 1, parent = #[[MMA64]]>
// CHECK-LABEL: func.func @kkt
// CHECK-SAME: (%[[K:.*]]: tensor<64x128xf32, #[[B2]]>, %[[G:.*]]: tensor<64xf32, #[[B1]]>) -> tensor<64x64xf32, #[[B2]]>
// CHECK: %[[CST:.*]] = arith.constant dense<1.000000e+00> : tensor<64x64xf32, #[[B2]]>
// CHECK: %[[A:.*]] = gdn_gpu.convert_layout %[[K]] : tensor<64x128xf32, #[[B2]]> -> tensor<64x128xf32, #[[A64]]>
// CHECK: %[[B:.*]] = gdn_gpu.convert_layout %[[K]] : tensor<64x128xf32, #[[B2]]> -> tensor<64x128xf32, #[[B64]]>
// CHECK: %[[D:.*]] = gdn_gpu.convert_layout %[[G]] : tensor<64xf32, #[[B1]]> -> tensor<64xf32, #[[ROWS]]>
// CHECK: %[[MM:.*]] = gdn.matmul %[[A]], %[[B]] transpose_b mask strict decay(%[[D]] : tensor<64xf32, #[[ROWS]]>)
// CHECK-SAME: -> tensor<64x64xf32, #[[MMA64]]>
// CHECK: %[[BACK:.*]] = gdn_gpu.convert_layout %[[MM]] : tensor<64x64xf32, #[[MMA64]]> -> tensor<64x64xf32, #[[B2]]>
// CHECK: %[[SUM:.*]] = arith.addf %[[BACK]], %[[CST]] : tensor<64x64xf32, #[[B2]]>
// CHECK: return %[[SUM]]
func.func @kkt(%k: tensor<64x128xf32>, %gamma: tensor<64xf32>) -> tensor<64x64xf32> {
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  %kk = gdn.matmul %k, %k transpose_b mask strict decay(%gamma : tensor<64xf32>)
      : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  %s = arith.addf %kk, %one : tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}

// -----

// Region arguments, loop results and scalars: tiles only, consistently.
// Operands are staged K-major: A used transposed and B used as is are
// transposed on the way.
// CHECK-DAG: #[[MMA128:.*]] = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
// CHECK-DAG: #[[T:.*]] = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = true>
// CHECK-DAG: #{{.*}} = #gdn_gpu.dot_operand<opIdx = 0, parent = #[[MMA128]], shared = #[[T]]>
// CHECK-DAG: #{{.*}} = #gdn_gpu.dot_operand<opIdx = 1, parent = #[[MMA128]], shared = #[[T]]>
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%[[M:.*]] = %{{.*}}) -> (tensor<128x128xf32, #[[BL:.*]]>)
// CHECK: gdn.matmul {{.*}} transpose_a mask none {{.*}} -> tensor<128x128xf32, #[[MMA128]]>
// CHECK: %[[E:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<64xf32, #{{.*}}>
// CHECK: math.exp %[[E]] : f32
// CHECK: scf.yield %{{.*}} : tensor<128x128xf32, #[[BL]]>
func.func @loop(%vn: tensor<64x128xf32>, %kd: tensor<64x128xf32>, %gamma: tensor<64xf32>,
                %m_in: tensor<128x128xf32>, %n: index) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %m_in) -> (tensor<128x128xf32>) {
    %upd = gdn.matmul %vn, %kd transpose_a mask none
        : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
    %gl = tensor.extract %gamma[%c63] : tensor<64xf32>
    %egl = math.exp %gl : f32
    %egls = tensor.splat %egl : tensor<128x128xf32>
    %md = arith.mulf %m, %egls : tensor<128x128xf32>
    %m1 = arith.addf %md, %upd : tensor<128x128xf32>
    scf.yield %m1 : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}

// -----

// A row scaling reads its vector in the row slice of the tile's layout.
// CHECK-DAG: #[[B2:.*]] = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[ROWS:.*]] = #gdn_gpu.slice<dim = 1, parent = #[[B2]]>
// CHECK-LABEL: func.func @scale
// CHECK: %[[V:.*]] = gdn_gpu.convert_layout %{{.*}} : tensor<64xf32, #{{.*}}> -> tensor<64xf32, #[[ROWS]]>
// CHECK: gdn.scale_rows %{{.*}}, %[[V]] : tensor<64x128xf32, #[[B2]]>, tensor<64xf32, #[[ROWS]]>
func.func @scale(%k: tensor<64x128xf32>, %beta: tensor<64xf32>) -> tensor<64x128xf32> {
  %s = gdn.scale_rows %k, %beta : tensor<64x128xf32>, tensor<64xf32>
  return %s : tensor<64x128xf32>
}
