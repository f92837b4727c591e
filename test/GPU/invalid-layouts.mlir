// RUN: gdn-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{threadsPerWarp must multiply to 32}}
func.func @lanes(%x: tensor<64x64xf32, #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 4], warpsPerCTA = [4, 1], order = [1, 0]>>) { return }

// -----

// expected-error @+1 {{order must be a permutation of the dimensions}}
func.func @order(%x: tensor<64x64xf32, #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 1]>>) { return }

// -----

// expected-error @+1 {{need one entry per dimension}}
func.func @ranks(%x: tensor<64x64xf32, #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [32], warpsPerCTA = [4, 1], order = [1, 0]>>) { return }

// -----

// expected-error @+1 {{warpsPerCTA[0] must be a multiple of 4}}
func.func @warpgroup(%x: tensor<64x64xf32, #gdn_gpu.wgmma<warpsPerCTA = [2, 2], instrN = 64>>) { return }

// -----

// expected-error @+1 {{instrN must be a multiple of 8 in [8, 256], got 12}}
func.func @instr(%x: tensor<64x64xf32, #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 12>>) { return }

// -----

// expected-error @+1 {{dim must be 0 or 1, got 2}}
func.func @slice(%x: tensor<64xf32, #gdn_gpu.slice<dim = 2, parent = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>>>) { return }

// -----

// expected-error @+2 {{swizzleBytes must be 32, 64 or 128, got 96}}
// expected-error @+1 {{failed to parse GDNGPU_DotOperandAttr parameter 'shared'}}
func.func @swizzle(%x: tensor<64x64xf32, #gdn_gpu.dot_operand<opIdx = 0, parent = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 96, transposed = false>>>) { return }

// -----

// expected-error @+1 {{opIdx must be 0 (A) or 1 (B), got 2}}
func.func @operand(%x: tensor<64x64xf32, #gdn_gpu.dot_operand<opIdx = 2, parent = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>>) { return }

// -----

func.func @rank(%x: tensor<64xf32>) {
  // expected-error @+1 {{layout #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64> is for rank 2 tiles, the result has rank 1}}
  %y = gdn_gpu.convert_layout %x : tensor<64xf32> -> tensor<64xf32, #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>>
  return
}

// -----

func.func @nolayout(%x: tensor<64xf32>) {
  // expected-error @+1 {{result needs a gdn_gpu layout}}
  %y = gdn_gpu.convert_layout %x : tensor<64xf32> -> tensor<64xf32>
  return
}
