!qk_mem   = memref<?x?x128xbf16>      // q, k: [T, H, K]
!v_mem    = memref<?x?x128xbf16>      // v, o: [T, HV, V]
!pool_mem = memref<?x?x128x128xf32>   // state_pool: [P, HV, V, K]
!qk_in    = tensor<64x128xbf16>       // a chunk of q or k as stored
!v_in     = tensor<64x128xbf16>       // a chunk of v or o as stored
!qk_tile  = tensor<64x128xf32>        // [C, K]
!v_tile   = tensor<64x128xf32>        // [C, V]
!state    = tensor<128x128xf32>       // M: [V, K]

func.func private @chunk(%q_in: !qk_in, %k_in: !qk_in, %v_in: !v_in,
                         %g_raw: tensor<64xf32>, %beta_raw: tensor<64xf32>,
                         %n: index, %m0: !state, %scale: f32, %l2norm: i1)
    -> (!v_in, !state) {
  %c63 = arith.constant 63 : index
  %qf = arith.extf %q_in : !qk_in to !qk_tile
  %kf = arith.extf %k_in : !qk_in to !qk_tile
  %v = arith.extf %v_in : !v_in to !v_tile
  %q, %k = scf.if %l2norm -> (!qk_tile, !qk_tile) {
    %qn = gdn.l2norm %qf : !qk_tile
    %kn = gdn.l2norm %kf : !qk_tile
    scf.yield %qn, %kn : !qk_tile, !qk_tile
  } else {
    scf.yield %qf, %kf : !qk_tile, !qk_tile
  }
  %g = gdn.mask_rows %g_raw, %n : tensor<64xf32>
  %beta = gdn.mask_rows %beta_raw, %n : tensor<64xf32>
  %gamma = gdn.cumsum %g : tensor<64xf32>
  %eg = math.exp %gamma : tensor<64xf32>

  %kk = gdn.matmul %k, %k transpose_b mask strict decay(%gamma : tensor<64xf32>)
      : !qk_tile, !qk_tile -> tensor<64x64xf32>
  %a = gdn.scale_rows %kk, %beta : tensor<64x64xf32>, tensor<64xf32>
  %tm = gdn.tri_inverse %a : tensor<64x64xf32>
  %beg = arith.mulf %beta, %eg : tensor<64xf32>
  %kw = gdn.scale_rows %k, %beg : !qk_tile, tensor<64xf32>
  %w = gdn.matmul %tm, %kw mask none : tensor<64x64xf32>, !qk_tile -> !qk_tile
  %vb = gdn.scale_rows %v, %beta : !v_tile, tensor<64xf32>
  %u = gdn.matmul %tm, %vb mask none : tensor<64x64xf32>, !v_tile -> !v_tile

  %wm = gdn.matmul %w, %m0 transpose_b mask none : !qk_tile, !state -> !v_tile
  %vn = arith.subf %u, %wm : !v_tile

  %qm = gdn.matmul %q, %m0 transpose_b mask none : !qk_tile, !state -> !v_tile
  %qmd = gdn.scale_rows %qm, %eg : !v_tile, tensor<64xf32>
  %qk = gdn.matmul %q, %k transpose_b mask causal decay(%gamma : tensor<64xf32>)
      : !qk_tile, !qk_tile -> tensor<64x64xf32>
  %intra = gdn.matmul %qk, %vn mask none : tensor<64x64xf32>, !v_tile -> !v_tile
  %sum = arith.addf %qmd, %intra : !v_tile
  %scales = tensor.splat %scale : !v_tile
  %o = arith.mulf %sum, %scales : !v_tile
  %o_out = arith.truncf %o : !v_tile to !v_in

  %gl = tensor.extract %gamma[%c63] : tensor<64xf32>
  %gls = tensor.splat %gl : tensor<64xf32>
  %dexp = arith.subf %gls, %gamma : tensor<64xf32>
  %d = math.exp %dexp : tensor<64xf32>
  %kd = gdn.scale_rows %k, %d : !qk_tile, tensor<64xf32>
  %upd = gdn.matmul %vn, %kd transpose_a mask none : !v_tile, !qk_tile -> !state
  %egl = math.exp %gl : f32
  %egls = tensor.splat %egl : !state
  %m0d = arith.mulf %m0, %egls : !state
  %m1 = arith.addf %m0d, %upd : !state
  return %o_out, %m1 : !v_in, !state
}

func.func @gdn_pool(%qm: !qk_mem, %km: !qk_mem, %vm: !v_mem,
                    %am: memref<?x?xf32>, %bm: memref<?x?xf32>,
                    %a_log: memref<?xf32>, %dt_bias: memref<?xf32>,
                    %pool: !pool_mem, %cache_indices: memref<?xi64>,
                    %cu_seqlens: memref<?xi64>, %om: !v_mem, %scale: f32)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %true = arith.constant true
  %hv = gdn.program_id 0
  %b = gdn.program_id 1
  %H = memref.dim %qm, %c1 : !qk_mem
  %HV = memref.dim %vm, %c1 : !v_mem
  %G = arith.divui %HV, %H : index
  %h = arith.divui %hv, %G : index
  %b1 = arith.addi %b, %c1 : index
  %t0_i = memref.load %cu_seqlens[%b] : memref<?xi64>
  %t1_i = memref.load %cu_seqlens[%b1] : memref<?xi64>
  %t0 = arith.index_cast %t0_i : i64 to index
  %t1 = arith.index_cast %t1_i : i64 to index
  %nonempty = arith.cmpi ult, %t0, %t1 : index
  scf.if %nonempty {
    %row_i = memref.load %cache_indices[%b] : memref<?xi64>
    %row = arith.index_cast %row_i : i64 to index
    %alog = memref.load %a_log[%hv] : memref<?xf32>
    %dtb = memref.load %dt_bias[%hv] : memref<?xf32>
    %m_in = gdn.state_load %pool[%row, %hv] : !pool_mem -> !state
    %m_out = scf.for %t = %t0 to %t1 step %c64 iter_args(%m = %m_in) -> (!state) {
      %left = arith.subi %t1, %t : index
      %n = arith.minui %left, %c64 : index
      %q = gdn.tile_load %qm[%t, %h, %c0] dims [0, 2] rows %n : !qk_mem -> !qk_in
      %k = gdn.tile_load %km[%t, %h, %c0] dims [0, 2] rows %n : !qk_mem -> !qk_in
      %v = gdn.tile_load %vm[%t, %hv, %c0] dims [0, 2] rows %n : !v_mem -> !v_in
      %a = gdn.tile_load %am[%t, %hv] dims [0] rows %n : memref<?x?xf32> -> tensor<64xf32>
      %bl = gdn.tile_load %bm[%t, %hv] dims [0] rows %n : memref<?x?xf32> -> tensor<64xf32>
      %g = gdn.gate raw %a A_log(%alog) dt_bias(%dtb) : tensor<64xf32>
      %beta = gdn.sigmoid %bl : tensor<64xf32>
      %o, %m1 = func.call @chunk(%q, %k, %v, %g, %beta, %n, %m, %scale, %true)
          : (!qk_in, !qk_in, !v_in, tensor<64xf32>, tensor<64xf32>, index, !state, f32, i1)
          -> (!v_in, !state)
      gdn.tile_store %o, %om[%t, %hv, %c0] dims [0, 2] rows %n : !v_in, !v_mem
      scf.yield %m1 : !state
    }
    gdn.state_store %m_out, %pool[%row, %hv] : !state, !pool_mem
  }
  return
}

func.func @gdn_paged(%qm: !qk_mem, %km: !qk_mem, %vm: !v_mem,
                     %gate_m: memref<?x?xf32>, %beta_m: memref<?x?xf32>,
                     %a_log: memref<?xf32>, %dt_bias: memref<?xf32>,
                     %pool: !pool_mem, %page_indices: memref<?xi64>,
                     %page_indptr: memref<?xi64>, %last_page_len: memref<?xi64>,
                     %cu_seqlens: memref<?xi64>, %om: !v_mem,
                     %page_size: index, %scale: f32, %gate_domain: index,
                     %beta_is_logit: i1, %l2norm: i1)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c63_idx = arith.constant 63 : index
  %hv = gdn.program_id 0
  %b = gdn.program_id 1
  %H = memref.dim %qm, %c1 : !qk_mem
  %HV = memref.dim %vm, %c1 : !v_mem
  %G = arith.divui %HV, %H : index
  %h = arith.divui %hv, %G : index
  %b1 = arith.addi %b, %c1 : index
  %t0_i = memref.load %cu_seqlens[%b] : memref<?xi64>
  %t1_i = memref.load %cu_seqlens[%b1] : memref<?xi64>
  %t0 = arith.index_cast %t0_i : i64 to index
  %t1 = arith.index_cast %t1_i : i64 to index
  %new = arith.subi %t1, %t0 : index
  %nonempty = arith.cmpi ult, %t0, %t1 : index
  scf.if %nonempty {
    %p0_i = memref.load %page_indptr[%b] : memref<?xi64>
    %p1_i = memref.load %page_indptr[%b1] : memref<?xi64>
    %pages_i = arith.subi %p1_i, %p0_i : i64
    %pages = arith.index_cast %pages_i : i64 to index
    %last_i = memref.load %last_page_len[%b] : memref<?xi64>
    %last = arith.index_cast %last_i : i64 to index
    %full = arith.subi %pages, %c1 : index
    %full_tokens = arith.muli %full, %page_size : index
    %L = arith.addi %full_tokens, %last : index
    %p = arith.subi %L, %new : index
    %alog = memref.load %a_log[%hv] : memref<?xf32>
    %dtb = memref.load %dt_bias[%hv] : memref<?xf32>

    %no_prefix = arith.cmpi eq, %p, %c0 : index
    %m_in = scf.if %no_prefix -> (!state) {
      %zero = arith.constant 0.0 : f32
      %z = tensor.splat %zero : !state
      scf.yield %z : !state
    } else {
      %last_prefix = arith.subi %p, %c1 : index
      %pn = arith.divui %last_prefix, %page_size : index
      %page = gdn.page_lookup %page_indices, %page_indptr[%b, %pn] : memref<?xi64>, memref<?xi64>
      %m = gdn.state_load %pool[%page, %hv] : !pool_mem -> !state
      scf.yield %m : !state
    }

    %c_first = arith.divui %p, %c64 : index
    %L63 = arith.addi %L, %c63_idx : index
    %c_end = arith.divui %L63, %c64 : index
    %m_out = scf.for %c = %c_first to %c_end step %c1 iter_args(%m = %m_in) -> (!state) {
      %cs = arith.muli %c, %c64 : index
      %ce = arith.addi %cs, %c64 : index
      %s = arith.maxui %cs, %p : index
      %e = arith.minui %ce, %L : index
      %n = arith.subi %e, %s : index
      %rel = arith.subi %s, %p : index
      %t = arith.addi %t0, %rel : index
      %q = gdn.tile_load %qm[%t, %h, %c0] dims [0, 2] rows %n : !qk_mem -> !qk_in
      %k = gdn.tile_load %km[%t, %h, %c0] dims [0, 2] rows %n : !qk_mem -> !qk_in
      %v = gdn.tile_load %vm[%t, %hv, %c0] dims [0, 2] rows %n : !v_mem -> !v_in
      %gin = gdn.tile_load %gate_m[%t, %hv] dims [0] rows %n : memref<?x?xf32> -> tensor<64xf32>
      %bin = gdn.tile_load %beta_m[%t, %hv] dims [0] rows %n : memref<?x?xf32> -> tensor<64xf32>
      %g = scf.index_switch %gate_domain -> tensor<64xf32>
      case 0 {
        %r = gdn.gate raw %gin A_log(%alog) dt_bias(%dtb) : tensor<64xf32>
        scf.yield %r : tensor<64xf32>
      }
      case 2 {
        %r = gdn.gate linear %gin : tensor<64xf32>
        scf.yield %r : tensor<64xf32>
      }
      default {
        %r = gdn.gate log %gin : tensor<64xf32>
        scf.yield %r : tensor<64xf32>
      }
      %beta = scf.if %beta_is_logit -> (tensor<64xf32>) {
        %r = gdn.sigmoid %bin : tensor<64xf32>
        scf.yield %r : tensor<64xf32>
      } else {
        scf.yield %bin : tensor<64xf32>
      }
      %o, %m1 = func.call @chunk(%q, %k, %v, %g, %beta, %n, %m, %scale, %l2norm)
          : (!qk_in, !qk_in, !v_in, tensor<64xf32>, tensor<64xf32>, index, !state, f32, i1)
          -> (!v_in, !state)
      gdn.tile_store %o, %om[%t, %hv, %c0] dims [0, 2] rows %n : !v_in, !v_mem
      %rem = arith.remui %e, %page_size : index
      %at_boundary = arith.cmpi eq, %rem, %c0 : index
      scf.if %at_boundary {
        %pn = arith.divui %e, %page_size : index
        %pn1 = arith.subi %pn, %c1 : index
        %page = gdn.page_lookup %page_indices, %page_indptr[%b, %pn1] : memref<?xi64>, memref<?xi64>
        gdn.state_store %m1, %pool[%page, %hv] : !state, !pool_mem
      }
      scf.yield %m1 : !state
    }
    %last_page = gdn.page_lookup %page_indices, %page_indptr[%b, %full] : memref<?xi64>, memref<?xi64>
    gdn.state_store %m_out, %pool[%last_page, %hv] : !state, !pool_mem
  }
  return
}
