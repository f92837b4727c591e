// One chunk of the kernel's prepare stage (kernels/gdn_chunked.mlir,
// @chunk_prepare, pool interface: raw gates, sigmoid beta, l2norm), with
// tile loads and stores around it: the second check kernel of
// scripts/check-tile-lowering.py. Written before layouts; the check runs
// gdn-gpu-assign-layouts, gdn-gpu-remove-layout-conversions and
// gdn-gpu-outline on it first.
func.func @chunk_prepare(%qm: memref<64x128xbf16>, %km: memref<64x128xbf16>,
                         %vm: memref<64x128xbf16>, %am: memref<64xf32>,
                         %bm: memref<64xf32>, %alog: f32, %dtb: f32,
                         %w_out: memref<64x128xf32>, %u_out: memref<64x128xf32>,
                         %kd_out: memref<64x128xf32>, %qg_out: memref<64x128xf32>,
                         %qk_out: memref<64x64xf32>, %gamma_out: memref<64xf32>,
                         %n: index) {
  %c0 = arith.constant 0 : index
  %c63 = arith.constant 63 : index
  %q_in = gdn.tile_load %qm[%c0, %c0] dims [0, 1] rows %n : memref<64x128xbf16> -> tensor<64x128xbf16>
  %k_in = gdn.tile_load %km[%c0, %c0] dims [0, 1] rows %n : memref<64x128xbf16> -> tensor<64x128xbf16>
  %v_in = gdn.tile_load %vm[%c0, %c0] dims [0, 1] rows %n : memref<64x128xbf16> -> tensor<64x128xbf16>
  %a = gdn.tile_load %am[%c0] dims [0] rows %n : memref<64xf32> -> tensor<64xf32>
  %bl = gdn.tile_load %bm[%c0] dims [0] rows %n : memref<64xf32> -> tensor<64xf32>
  %g_raw = gdn.gate raw %a A_log(%alog) dt_bias(%dtb) : tensor<64xf32>
  %beta_raw = gdn.sigmoid %bl : tensor<64xf32>
  %qf = arith.extf %q_in : tensor<64x128xbf16> to tensor<64x128xf32>
  %kf = arith.extf %k_in : tensor<64x128xbf16> to tensor<64x128xf32>
  %v = arith.extf %v_in : tensor<64x128xbf16> to tensor<64x128xf32>
  %q = gdn.l2norm %qf : tensor<64x128xf32>
  %k = gdn.l2norm %kf : tensor<64x128xf32>
  %g = gdn.mask_rows %g_raw, %n : tensor<64xf32>
  %beta = gdn.mask_rows %beta_raw, %n : tensor<64xf32>
  %gamma = gdn.cumsum %g : tensor<64xf32>
  %eg = math.exp %gamma : tensor<64xf32>
  %kk = gdn.matmul %k, %k transpose_b mask strict decay(%gamma : tensor<64xf32>)
      : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  %am2 = gdn.scale_rows %kk, %beta : tensor<64x64xf32>, tensor<64xf32>
  %tm = gdn.tri_inverse %am2 : tensor<64x64xf32>
  %beg = arith.mulf %beta, %eg : tensor<64xf32>
  %kw = gdn.scale_rows %k, %beg : tensor<64x128xf32>, tensor<64xf32>
  %w = gdn.matmul %tm, %kw mask none : tensor<64x64xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
  %vb = gdn.scale_rows %v, %beta : tensor<64x128xf32>, tensor<64xf32>
  %u = gdn.matmul %tm, %vb mask none : tensor<64x64xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
  %gl = tensor.extract %gamma[%c63] : tensor<64xf32>
  %gls = tensor.splat %gl : tensor<64xf32>
  %dexp = arith.subf %gls, %gamma : tensor<64xf32>
  %d = math.exp %dexp : tensor<64xf32>
  %kd = gdn.scale_rows %k, %d : tensor<64x128xf32>, tensor<64xf32>
  %qg = gdn.scale_rows %q, %eg : tensor<64x128xf32>, tensor<64xf32>
  %qk = gdn.matmul %q, %k transpose_b mask causal decay(%gamma : tensor<64xf32>)
      : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  gdn.tile_store %w, %w_out[%c0, %c0] dims [0, 1] : tensor<64x128xf32>, memref<64x128xf32>
  gdn.tile_store %u, %u_out[%c0, %c0] dims [0, 1] : tensor<64x128xf32>, memref<64x128xf32>
  gdn.tile_store %kd, %kd_out[%c0, %c0] dims [0, 1] : tensor<64x128xf32>, memref<64x128xf32>
  gdn.tile_store %qg, %qg_out[%c0, %c0] dims [0, 1] : tensor<64x128xf32>, memref<64x128xf32>
  gdn.tile_store %qk, %qk_out[%c0, %c0] dims [0, 1] : tensor<64x64xf32>, memref<64x64xf32>
  gdn.tile_store %gamma, %gamma_out[%c0] dims [0] : tensor<64xf32>, memref<64xf32>
  return
}
