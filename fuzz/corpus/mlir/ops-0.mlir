func.func @program_ids() -> (index, index, index) {
  %0 = gdn.program_id 0
  %1 = gdn.program_id 1
  %2 = gdn.program_id 2
  return %0, %1, %2 : index, index, index
}

func.func @tiles(%q: memref<?x?x128xbf16>, %g: memref<?x?xf32>, %t: index,
                 %h: index, %n: index) {
  %c0 = arith.constant 0 : index
  %qt = gdn.tile_load %q[%t, %h, %c0] dims [0, 2] rows %n : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  %gt = gdn.tile_load %g[%t, %h] dims [0] : memref<?x?xf32> -> tensor<64xf32>
  gdn.tile_store %qt, %q[%t, %h, %c0] dims [0, 2] rows %n : tensor<64x128xbf16>, memref<?x?x128xbf16>
  gdn.tile_store %gt, %g[%t, %h] dims [0] : tensor<64xf32>, memref<?x?xf32>
  %m = gdn.mask_rows %gt, %n : tensor<64xf32>
  return
}

func.func @gates(%a: tensor<64xf32>, %alog: f32, %dtb: f32) -> tensor<64xf32> {
  %g0 = gdn.gate raw %a A_log(%alog) dt_bias(%dtb) : tensor<64xf32>
  %g1 = gdn.gate log %g0 : tensor<64xf32>
  %g2 = gdn.gate linear %g1 : tensor<64xf32>
  %b = gdn.sigmoid %g2 : tensor<64xf32>
  %c = gdn.cumsum %b : tensor<64xf32>
  return %c : tensor<64xf32>
}

func.func @norms(%x: tensor<64x128xf32>, %s: tensor<64xf32>) -> tensor<64x128xf32> {
  %n = gdn.l2norm %x : tensor<64x128xf32>
  %n2 = gdn.l2norm %n {eps = 1.0e-3 : f32} : tensor<64x128xf32>
  %r = gdn.scale_rows %n2, %s : tensor<64x128xf32>, tensor<64xf32>
  return %r : tensor<64x128xf32>
}

func.func @matmuls(%k: tensor<64x128xf32>, %kb: tensor<64x128xbf16>,
                   %m: tensor<128x128xf32>, %gamma: tensor<64xf32>) {
  %a = gdn.matmul %k, %k transpose_b mask strict decay(%gamma : tensor<64xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  %qk = gdn.matmul %kb, %kb transpose_b mask causal : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xf32>
  %up = gdn.matmul %k, %k transpose_a mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  %p = gdn.matmul %k, %m mask none : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %t = gdn.tri_inverse %a : tensor<64x64xf32>
  return
}

func.func @state(%pool: memref<?x?x128x64xf32>, %pi: memref<?xi32>,
                 %pp: memref<?xi64>, %b: index, %n: index, %hv: index) {
  %page = gdn.page_lookup %pi, %pp[%b, %n] : memref<?xi32>, memref<?xi64>
  %m = gdn.state_load %pool[%page, %hv] : memref<?x?x128x64xf32> -> tensor<128x64xf32>
  gdn.state_store %m, %pool[%page, %hv] : tensor<128x64xf32>, memref<?x?x128x64xf32>
  return
}
