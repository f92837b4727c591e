// RUN: gdn-opt %s -split-input-file | gdn-opt -split-input-file | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: gdn-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=FOLD

// Every layout of the gdn_gpu dialect parses, prints under its short alias
// and survives a round trip.

// ROUNDTRIP-DAG: #[[BLOCKED:.*]] = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// ROUNDTRIP-DAG: #[[MMA:.*]] = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
// ROUNDTRIP-DAG: #[[SLICE:.*]] = #gdn_gpu.slice<dim = 1, parent = #[[MMA]]>
// ROUNDTRIP-DAG: #[[SHARED:.*]] = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>
// ROUNDTRIP-DAG: #[[DOT:.*]] = #gdn_gpu.dot_operand<opIdx = 0, parent = #[[MMA]], shared = #[[SHARED]]>
// ROUNDTRIP-LABEL: func.func @layouts
// ROUNDTRIP-SAME: tensor<64x64xf32, #[[BLOCKED]]>
// ROUNDTRIP: gdn_gpu.convert_layout %{{.*}} : tensor<64x64xf32, #[[BLOCKED]]> -> tensor<64x64xf32, #[[MMA]]>
// ROUNDTRIP: gdn_gpu.convert_layout %{{.*}} : tensor<64x64xf32, #[[BLOCKED]]> -> tensor<64x64xf32, #[[DOT]]>
// ROUNDTRIP: gdn_gpu.convert_layout %{{.*}} : tensor<64xf32, #{{.*}}> -> tensor<64xf32, #[[SLICE]]>
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#dot = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#rows = #gdn_gpu.slice<dim = 1, parent = #mma>
func.func @layouts(%x: tensor<64x64xf32, #blocked>, %v: tensor<64xf32, #blocked1>)
    -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #dot>, tensor<64xf32, #rows>) {
  %a = gdn_gpu.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  %b = gdn_gpu.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #dot>
  %c = gdn_gpu.convert_layout %v : tensor<64xf32, #blocked1> -> tensor<64xf32, #rows>
  return %a, %b, %c : tensor<64x64xf32, #mma>, tensor<64x64xf32, #dot>, tensor<64xf32, #rows>
}

// -----

// A conversion to the layout a tile has folds away; so does a round trip,
// and a chain keeps only its last move.
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#slice = #gdn_gpu.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]>
// FOLD-LABEL: func.func @folds
// FOLD-SAME: (%[[X:.*]]: tensor<64x64xf32, #{{.*}}>)
// FOLD-NEXT: %[[C:.*]] = gdn_gpu.convert_layout %[[X]] : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked1>
// FOLD-NEXT: return %[[X]], %[[X]], %[[C]]
func.func @folds(%x: tensor<64x64xf32, #blocked>)
    -> (tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>, tensor<64x64xf32, #slice>) {
  %same = gdn_gpu.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
  %to = gdn_gpu.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  %back = gdn_gpu.convert_layout %to : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %other = gdn_gpu.convert_layout %to : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #slice>
  return %same, %back, %other : tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>, tensor<64x64xf32, #slice>
}
