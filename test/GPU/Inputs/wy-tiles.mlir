// A kernel in the layout IR that exercises every op family the register-tile
// lowering has so far, checked against torch on the GPU by
// scripts/check-tile-lowering.py and lowered in lit by lower-tiles.mlir:
//   kk  = beta (.) (K K^T (.) exp(gamma_i - gamma_j), j < i)   masked, decayed
//   kv  = kk V                        A = a result tile, B used transposed
//   upd = V^T K                       A used transposed, 128-row result
// with a ragged tail of n rows (rows n.. read as zero, not written).
#blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#vec = #gdn_gpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#mma64 = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#mma128 = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#k_a = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma64, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#k_b = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma64, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#kk_a = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma128, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
#v_b = #gdn_gpu.dot_operand<opIdx = 1, parent = #mma128, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = true>>
#v_at = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma128, shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = true>>
#rows64 = #gdn_gpu.slice<dim = 1, parent = #mma64>
module attributes {gpu.container_module} {
gpu.module @tiles {
  gpu.func @wy_tiles(%km: memref<64x128xbf16>, %vm: memref<64x128xbf16>,
                     %betam: memref<64xf32>, %gm: memref<64xf32>,
                     %kk_out: memref<64x64xf32>, %kv_out: memref<64x128xf32>,
                     %upd_out: memref<128x128xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %k16 = gdn.tile_load %km[%c0, %c0] dims [0, 1] rows %n : memref<64x128xbf16> -> tensor<64x128xbf16, #blocked>
    %v16 = gdn.tile_load %vm[%c0, %c0] dims [0, 1] rows %n : memref<64x128xbf16> -> tensor<64x128xbf16, #blocked>
    %beta = gdn.tile_load %betam[%c0] dims [0] rows %n : memref<64xf32> -> tensor<64xf32, #vec>
    %gamma = gdn.tile_load %gm[%c0] dims [0] : memref<64xf32> -> tensor<64xf32, #vec>
    %k = arith.extf %k16 : tensor<64x128xbf16, #blocked> to tensor<64x128xf32, #blocked>
    %v = arith.extf %v16 : tensor<64x128xbf16, #blocked> to tensor<64x128xf32, #blocked>

    %ka = gdn_gpu.convert_layout %k : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #k_a>
    %kb = gdn_gpu.convert_layout %k : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #k_b>
    %gr = gdn_gpu.convert_layout %gamma : tensor<64xf32, #vec> -> tensor<64xf32, #rows64>
    %kk = gdn.matmul %ka, %kb transpose_b mask strict decay(%gr : tensor<64xf32, #rows64>)
        : tensor<64x128xf32, #k_a>, tensor<64x128xf32, #k_b> -> tensor<64x64xf32, #mma64>
    %br = gdn_gpu.convert_layout %beta : tensor<64xf32, #vec> -> tensor<64xf32, #rows64>
    %a = gdn.scale_rows %kk, %br : tensor<64x64xf32, #mma64>, tensor<64xf32, #rows64>
    %a_out = gdn_gpu.convert_layout %a : tensor<64x64xf32, #mma64> -> tensor<64x64xf32, #blocked>
    gdn.tile_store %a_out, %kk_out[%c0, %c0] dims [0, 1] rows %n : tensor<64x64xf32, #blocked>, memref<64x64xf32>

    %aa = gdn_gpu.convert_layout %a_out : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #kk_a>
    %vb = gdn_gpu.convert_layout %v : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #v_b>
    %kv = gdn.matmul %aa, %vb mask none
        : tensor<64x64xf32, #kk_a>, tensor<64x128xf32, #v_b> -> tensor<64x128xf32, #mma128>
    %kv_b = gdn_gpu.convert_layout %kv : tensor<64x128xf32, #mma128> -> tensor<64x128xf32, #blocked>
    gdn.tile_store %kv_b, %kv_out[%c0, %c0] dims [0, 1] : tensor<64x128xf32, #blocked>, memref<64x128xf32>

    %vt = gdn_gpu.convert_layout %v : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #v_at>
    %kt = gdn_gpu.convert_layout %k : tensor<64x128xf32, #blocked> -> tensor<64x128xf32, #v_b>
    %upd = gdn.matmul %vt, %kt transpose_a mask none
        : tensor<64x128xf32, #v_at>, tensor<64x128xf32, #v_b> -> tensor<128x128xf32, #mma128>
    %upd_b = gdn_gpu.convert_layout %upd : tensor<128x128xf32, #mma128> -> tensor<128x128xf32, #blocked>
    gdn.tile_store %upd_b, %upd_out[%c0, %c0] dims [0, 1] : tensor<128x128xf32, #blocked>, memref<128x128xf32>
    gpu.return
  }
}
}
