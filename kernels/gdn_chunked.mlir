// Chunked Gated DeltaNet prefill (SPEC.md, "The chunked (WY) form"), one
// program per (value head, block of its state rows, sequence):
// grid = [HV x V / Vb, B, 1], where Vb is the row count of the !state tile
// (V unless the schedule splits V: its v-block).
//
// Two entry points share the per-chunk stages below:
//   @gdn_pool   the pool interface: raw gates, l2norm, one state row per
//               sequence chosen by cache_indices; chunks start at each
//               sequence's first new token.
//   @gdn_paged  the paged interface: gates as given (log / linear / raw),
//               optional l2norm and beta logit, a CSR page table; chunks are
//               aligned to absolute positions so that every page boundary is
//               a chunk boundary, and the state is checkpointed there.
//
// Each entry's pass over its chunks is a gdn.chunk_scan split into stages
// (prepare, step, emit, transition). Which stages share a kernel, where the
// values between them live and how a sequence is split over blocks is the
// schedule's business (gdn-schedule, docs/Schedules.md), not this file's.
//
// Shape parameters are the type aliases below: K = V = 128, bf16 inputs,
// chunks of C = 64 tokens.
// gdn-run re-binds them (memrefs to the head sizes K <= 256, V <= 512; tiles
// to those sizes padded to a multiple of 64, whose padding loads read as
// zero and stores skip; bf16 or f16; the V of the tiles to the schedule's
// v-block; the chunk tiles' rows to its chunk=) before compiling; the rest
// of the file never spells a head size or the chunk size.

!qk_mem   = memref<?x?x128xbf16>      // q, k: [T, H, K]
!v_mem    = memref<?x?x128xbf16>      // v, o: [T, HV, V]
!pool_mem = memref<?x?x128x128xf32, strided<[?, 16384, 128, 1]>>   // state_pool: [P, HV, V, K], rows may be padded apart
!qk_in    = tensor<64x128xbf16>       // a chunk of q or k as stored
!v_in     = tensor<64x128xbf16>       // a chunk of v or o as stored: [C, Vb]
!qk_tile  = tensor<64x128xf32>        // [C, K]
!v_tile   = tensor<64x128xf32>        // [C, Vb]
!state    = tensor<128x128xf32>       // M: [Vb, K], this program's state rows
!kk       = tensor<128x128xf32>       // [K, K]
!chunk_vec = tensor<64xf32>           // a value per token of a chunk: [C]
!chunk_sq  = tensor<64x64xf32>        // token by token within a chunk: [C, C]

// The chunk size C, read off the chunk tiles' type (the specialiser binds
// !chunk_vec to the schedule's chunk=), and the index C - 1 of a chunk's
// last row. Both fold to constants.
func.func private @chunk_size() -> index {
  %c0 = arith.constant 0 : index
  %rows = tensor.empty() : !chunk_vec
  %C = tensor.dim %rows, %c0 : !chunk_vec
  return %C : index
}
func.func private @chunk_last_row() -> index {
  %c1 = arith.constant 1 : index
  %C = func.call @chunk_size() : () -> index
  %last = arith.subi %C, %c1 : index
  return %last : index
}

// Prepare (state-independent) one chunk of n <= C tokens (rows n.. are
// padding), its key side: W of the WY form and the inverse Tm that U
// takes (@wy_values), K and Q as the products read them (l2-normalised
// when asked), beta with the padding masked and gamma, the cumulative log
// decay. Nothing here reads the program's V rows, so a schedule may run
// it once for all the V-blocks of a head (`staged prepare-per=head`). The
// decays of K to the chunk's end and of Q from its start are not applied
// to K and Q: the step and the output apply them to the V-wide side of
// their products, so that one copy of K and of Q feeds every product.
func.func private @chunk_solve(%q_in: !qk_in, %k_in: !qk_in,
                               %g_raw: !chunk_vec, %beta_raw: !chunk_vec,
                               %n: index, %l2norm: i1)
    -> (!qk_tile, !chunk_sq, !chunk_vec, !qk_tile, !qk_tile, !chunk_vec) {
  %qf = arith.extf %q_in : !qk_in to !qk_tile
  %kf = arith.extf %k_in : !qk_in to !qk_tile
  %q, %k = scf.if %l2norm -> (!qk_tile, !qk_tile) {
    %qn = gdn.l2norm %qf : !qk_tile
    %kn = gdn.l2norm %kf : !qk_tile
    scf.yield %qn, %kn : !qk_tile, !qk_tile
  } else {
    scf.yield %qf, %kf : !qk_tile, !qk_tile
  }
  // A log decay below -200 is a zero decay in f32 (exp(-200) = 0); held
  // there, a chunk's cumulative sum of gates such as -3e38 stays finite
  // (-inf - -inf in a decay ratio is NaN) and keeps the differences of the
  // mild gates after it.
  %floor = arith.constant dense<-200.0> : !chunk_vec
  %g_floor = arith.maximumf %g_raw, %floor : !chunk_vec
  // Padding rows neither decay nor update the state: g = beta = 0 there.
  %g = gdn.mask_rows %g_floor, %n : !chunk_vec
  %beta = gdn.mask_rows %beta_raw, %n : !chunk_vec
  %gamma = gdn.cumsum %g : !chunk_vec
  %eg = math.exp %gamma : !chunk_vec

  // WY: A = beta (K K^T) (.) exp(gamma_i - gamma_j) (j < i); Tm = (I + A)^-1;
  //     W = Tm diag(beta exp(gamma)) K;  U = Tm diag(beta) V (@wy_values).
  %kk = gdn.matmul %k, %k transpose_b mask strict decay(%gamma : !chunk_vec)
      : !qk_tile, !qk_tile -> !chunk_sq
  %a = gdn.scale_rows %kk, %beta : !chunk_sq, !chunk_vec
  %tm = gdn.tri_inverse %a : !chunk_sq
  %beg = arith.mulf %beta, %eg : !chunk_vec
  %kw = gdn.scale_rows %k, %beg : !qk_tile, !chunk_vec
  %w = gdn.matmul %tm, %kw mask none : !chunk_sq, !qk_tile -> !qk_tile
  return %w, %tm, %beta, %k, %q, %gamma
      : !qk_tile, !chunk_sq, !chunk_vec, !qk_tile, !qk_tile, !chunk_vec
}

// U = Tm diag(beta) V, the value side of the WY form: the one prepared
// value that reads the program's V rows.
func.func private @wy_values(%tm: !chunk_sq, %v_in: !v_in, %beta: !chunk_vec)
    -> !v_tile {
  %v = arith.extf %v_in : !v_in to !v_tile
  %vb = gdn.scale_rows %v, %beta : !v_tile, !chunk_vec
  %u = gdn.matmul %tm, %vb mask none : !chunk_sq, !v_tile -> !v_tile
  return %u : !v_tile
}

// The intra-chunk attention Q K^T (.) D, D the causal decay.
func.func private @chunk_attention(%q: !qk_tile, %k: !qk_tile,
                                   %gamma: !chunk_vec) -> !chunk_sq {
  %qk = gdn.matmul %q, %k transpose_b mask causal decay(%gamma : !chunk_vec)
      : !qk_tile, !qk_tile -> !chunk_sq
  return %qk : !chunk_sq
}

// exp(gamma_last - gamma): each row's decay to the chunk's end. Padding
// rows have g = 0, so gamma[C - 1] is gamma of the last real token.
func.func private @decay_to_end(%gamma: !chunk_vec) -> !chunk_vec {
  %last_row = func.call @chunk_last_row() : () -> index
  %gl = tensor.extract %gamma[%last_row] : !chunk_vec
  %gls = tensor.splat %gl : !chunk_vec
  %dexp = arith.subf %gls, %gamma : !chunk_vec
  %d = math.exp %dexp : !chunk_vec
  return %d : !chunk_vec
}

// The serial step: Vn = U - W M0^T and
// M_L = exp(gamma_last) M0 + (diag(exp(gamma_last - gamma)) Vn)^T K.
func.func private @chunk_step(%w: !qk_tile, %u: !v_tile, %k: !qk_tile,
                              %gamma: !chunk_vec, %m0: !state)
    -> (!state, !v_tile) {
  %last_row = func.call @chunk_last_row() : () -> index
  %wm = gdn.matmul %w, %m0 transpose_b mask none : !qk_tile, !state -> !v_tile
  %vn = arith.subf %u, %wm : !v_tile
  %d = func.call @decay_to_end(%gamma) : (!chunk_vec) -> !chunk_vec
  %vnd = gdn.scale_rows %vn, %d : !v_tile, !chunk_vec
  %upd = gdn.matmul %vnd, %k transpose_a mask none : !v_tile, !qk_tile -> !state
  %gl = tensor.extract %gamma[%last_row] : !chunk_vec
  %egl = math.exp %gl : f32
  %egls = tensor.splat %egl : !state
  %m0d = arith.mulf %m0, %egls : !state
  %m1 = arith.addf %m0d, %upd : !state
  return %m1, %vn : !state, !v_tile
}

// The chunk's output in the storage type:
// O = scale (diag(exp(gamma)) (Q M0^T) + (Q K^T (.) D) Vn).
func.func private @chunk_output(%q: !qk_tile, %qk: !chunk_sq, %gamma: !chunk_vec,
                                %m0: !state, %vn: !v_tile, %scale: f32) -> !v_in {
  %qm = gdn.matmul %q, %m0 transpose_b mask none : !qk_tile, !state -> !v_tile
  %eg = math.exp %gamma : !chunk_vec
  %qmg = gdn.scale_rows %qm, %eg : !v_tile, !chunk_vec
  %intra = gdn.matmul %qk, %vn mask none : !chunk_sq, !v_tile -> !v_tile
  %sum = arith.addf %qmg, %intra : !v_tile
  %scales = tensor.splat %scale : !v_tile
  %o = arith.mulf %sum, %scales : !v_tile
  %o_out = arith.truncf %o : !v_tile to !v_in
  return %o_out : !v_in
}

// The chunk composed onto the map of the segment's chunks before it,
// M = a1 M0 + M0 B1 + R1 (split-seq starts from (1, 0, 0)). The chunk alone
// is M_L = a2 M0 + M0 B2 + R2 with a2 = exp(gamma_last), B2 = -W^T kd and
// R2 = U^T kd (kd = diag(exp(gamma_last - gamma)) K, applied to the other
// factor, as in the step), so
//   a = a1 a2
//   B = a2 B1 + (a1 I + B1) B2 = a2 B1 - (a1 W + W B1^T)^T kd
//   R = a2 R1 + R1 B2 + R2     = a2 R1 + (U - W R1^T)^T kd: the step on R1.
// Through B2's factors every product is [C, K] x [K, K] or [K, C] x [C, K]:
// two thirds of the flops of forming B2 and R2 and then B1 B2 and R1 B2.
func.func private @chunk_transition(%w: !qk_tile, %u: !v_tile, %k: !qk_tile,
                                    %gamma: !chunk_vec, %a1: f32,
                                    %b1: !kk, %r1: !state) -> (f32, !kk, !state) {
  %last_row = func.call @chunk_last_row() : () -> index
  %gl = tensor.extract %gamma[%last_row] : !chunk_vec
  %a2 = math.exp %gl : f32
  %a = arith.mulf %a1, %a2 : f32
  %wb = gdn.matmul %w, %b1 transpose_b mask none : !qk_tile, !kk -> !qk_tile
  %a1s = tensor.splat %a1 : !qk_tile
  %aw = arith.mulf %w, %a1s : !qk_tile
  %x = arith.addf %aw, %wb : !qk_tile
  // Sums of products, so that gdn-fold-matmul-accumulate accumulates each
  // product onto its addend's registers.
  %xn = arith.negf %x : !qk_tile
  %d = func.call @decay_to_end(%gamma) : (!chunk_vec) -> !chunk_vec
  %xnd = gdn.scale_rows %xn, %d : !qk_tile, !chunk_vec
  %xk = gdn.matmul %xnd, %k transpose_a mask none : !qk_tile, !qk_tile -> !kk
  %a2s = tensor.splat %a2 : !kk
  %b1d = arith.mulf %b1, %a2s : !kk
  %b = arith.addf %b1d, %xk : !kk
  %r, %vn = func.call @chunk_step(%w, %u, %k, %gamma, %r1)
      : (!qk_tile, !v_tile, !qk_tile, !chunk_vec, !state) -> (!state, !v_tile)
  return %a, %b, %r : f32, !kk, !state
}

// Pool chunk c: first token t = t0 + C c and row count n = min(t1 - t, C).
func.func private @pool_chunk_rows(%c: index, %t0: index, %t1: index)
    -> (index, index) {
  %C = func.call @chunk_size() : () -> index
  %off = arith.muli %c, %C : index
  %t = arith.addi %t0, %off : index
  %left = arith.subi %t1, %t : index
  %n = arith.minui %left, %C : index
  return %t, %n : index, index
}

// The first of sequence b's chunk slots among the call's (gdn.chunk_scan's
// `slots from`): floor(t0 / C) + 2 b, t0 its first token in q / k / v. A
// sequence of n tokens spans at most floor(n / C) + 2 chunks (one more
// where paged chunks start before its first new token), so no two
// sequences share a slot and the call has at most ceil(T / C) + 2 B + 1.
func.func private @first_call_slot(%t0: index, %b: index) -> index {
  %C = func.call @chunk_size() : () -> index
  %c2 = arith.constant 2 : index
  %chunks = arith.divui %t0, %C : index
  %b2 = arith.muli %b, %c2 : index
  %slot = arith.addi %chunks, %b2 : index
  return %slot : index
}

// Paged chunk c covers absolute positions [C c, C c + C) clipped to the
// new tokens [p, L): first token t (in q / k / v), row count n, end e.
func.func private @paged_chunk_rows(%c: index, %p: index, %L: index, %t0: index)
    -> (index, index, index) {
  %C = func.call @chunk_size() : () -> index
  %cs = arith.muli %c, %C : index
  %ce = arith.addi %cs, %C : index
  %s = arith.maxui %cs, %p : index
  %e = arith.minui %ce, %L : index
  %n = arith.subi %e, %s : index
  %rel = arith.subi %s, %p : index
  %t = arith.addi %t0, %rel : index
  return %t, %n, %e : index, index, index
}

// Pool interface (seed 000): g = -exp(A_log) softplus(a + dt_bias),
// beta = sigmoid(b), q and k l2-normalised.
func.func @gdn_pool(%qm: !qk_mem, %km: !qk_mem, %vm: !v_mem,
                    %am: memref<?x?xf32>, %bm: memref<?x?xf32>,
                    %a_log: memref<?xf32>, %dt_bias: memref<?xf32>,
                    %pool: !pool_mem, %cache_indices: memref<?xi64>,
                    %cu_seqlens: memref<?xi64>, %om: !v_mem, %scale: f32)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %C = func.call @chunk_size() : () -> index
  %last_row = func.call @chunk_last_row() : () -> index
  %true = arith.constant true
  %b = gdn.program_id 1
  %x = gdn.program_id 0
  // Each head's V rows are spread over ceil(V / Vb) programs, Vb the
  // !state tile's row count (V padded to the tile in the last block); with
  // Vb >= V this is (program_id 0, 0).
  %V = memref.dim %vm, %c2 : !v_mem
  %rows = tensor.empty() : !state
  %Vb = tensor.dim %rows, %c0 : !state
  %hv, %v0 = gdn.program_rows %x of %V by %Vb
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
  // A zero-length sequence reads and writes nothing.
  scf.if %nonempty {
    %row_i = memref.load %cache_indices[%b] : memref<?xi64>
    %row = arith.index_cast %row_i : i64 to index
    %alog = memref.load %a_log[%hv] : memref<?xf32>
    %dtb = memref.load %dt_bias[%hv] : memref<?xf32>
    %m_in = gdn.state_load %pool[%row, %hv, %v0] : !pool_mem -> !state
    // Chunk c covers tokens t0 + C c .. min(t1, t0 + C c + C) - 1.
    %len = arith.subi %t1, %t0 : index
    %len_up = arith.addi %len, %last_row : index
    %nc = arith.divui %len_up, %C : index
    %slot0 = func.call @first_call_slot(%t0, %b) : (index, index) -> index
    %m_out = gdn.chunk_scan %c0 to %nc slots from %slot0 init(%m_in : !state)
    prepare {
    ^bb0(%c: index):
      %t, %n = func.call @pool_chunk_rows(%c, %t0, %t1) : (index, index, index) -> (index, index)
      %q = gdn.tile_load %qm[%t, %h, %c0] dims [0, 2] rows %n : !qk_mem -> !qk_in
      %k = gdn.tile_load %km[%t, %h, %c0] dims [0, 2] rows %n : !qk_mem -> !qk_in
      %v = gdn.tile_load %vm[%t, %hv, %v0] dims [0, 2] rows %n : !v_mem -> !v_in
      %a = gdn.tile_load %am[%t, %hv] dims [0] rows %n : memref<?x?xf32> -> !chunk_vec
      %bl = gdn.tile_load %bm[%t, %hv] dims [0] rows %n : memref<?x?xf32> -> !chunk_vec
      %g = gdn.gate raw %a A_log(%alog) dt_bias(%dtb) : !chunk_vec
      %beta = gdn.sigmoid %bl : !chunk_vec
      %w, %tm, %beta_rows, %kn, %qn, %gamma = func.call @chunk_solve(%q, %k, %g, %beta, %n, %true)
          : (!qk_in, !qk_in, !chunk_vec, !chunk_vec, index, i1)
          -> (!qk_tile, !chunk_sq, !chunk_vec, !qk_tile, !qk_tile, !chunk_vec)
      %u = func.call @wy_values(%tm, %v, %beta_rows) : (!chunk_sq, !v_in, !chunk_vec) -> !v_tile
      %qk = func.call @chunk_attention(%qn, %kn, %gamma) : (!qk_tile, !qk_tile, !chunk_vec) -> !chunk_sq
      gdn.yield %w, %u, %kn, %qn, %qk, %gamma : !qk_tile, !v_tile, !qk_tile, !qk_tile, !chunk_sq, !chunk_vec
    } step {
    ^bb0(%c: index, %w: !qk_tile, %u: !v_tile, %kn: !qk_tile, %qn: !qk_tile,
         %qk: !chunk_sq, %gamma: !chunk_vec,
         %m: !state):
      %m1, %vn = func.call @chunk_step(%w, %u, %kn, %gamma, %m)
          : (!qk_tile, !v_tile, !qk_tile, !chunk_vec, !state) -> (!state, !v_tile)
      gdn.yield %m1, %vn : !state, !v_tile
    } emit {
    ^bb0(%c: index, %w: !qk_tile, %u: !v_tile, %kn: !qk_tile, %qn: !qk_tile,
         %qk: !chunk_sq, %gamma: !chunk_vec,
         %m: !state, %vn: !v_tile):
      %t, %n = func.call @pool_chunk_rows(%c, %t0, %t1) : (index, index, index) -> (index, index)
      %o = func.call @chunk_output(%qn, %qk, %gamma, %m, %vn, %scale)
          : (!qk_tile, !chunk_sq, !chunk_vec, !state, !v_tile, f32) -> !v_in
      gdn.tile_store %o, %om[%t, %hv, %v0] dims [0, 2] rows %n : !v_in, !v_mem
    } transition {
    ^bb0(%c: index, %w: !qk_tile, %u: !v_tile, %kn: !qk_tile, %qn: !qk_tile,
         %qk: !chunk_sq, %gamma: !chunk_vec,
         %ma: f32, %mb: !kk, %mr: !state):
      %ta, %tb, %tr = func.call @chunk_transition(%w, %u, %kn, %gamma, %ma, %mb, %mr)
          : (!qk_tile, !v_tile, !qk_tile, !chunk_vec, f32, !kk, !state)
            -> (f32, !kk, !state)
      gdn.yield %ta, %tb, %tr : f32, !kk, !state
    }
    gdn.state_store %m_out, %pool[%row, %hv, %v0] : !state, !pool_mem
  }
  return
}

// Paged interface (seed 004). %gate_domain: 0 raw (use_gate_in_kernel, the
// gate tensor holds `a`), 1 log (g), 2 linear (alpha). Index arrays are i64.
func.func @gdn_paged(%qm: !qk_mem, %km: !qk_mem, %vm: !v_mem,
                     %gate_m: memref<?x?xf32>, %beta_m: memref<?x?xf32>,
                     %a_log: memref<?xf32>, %dt_bias: memref<?xf32>,
                     %pool: !pool_mem, %page_indices: memref<?xi64>,
                     %page_indptr: memref<?xi64>, %last_page_len: memref<?xi64>,
                     %cu_seqlens: memref<?xi64>, %om: !v_mem,
                     %page_size: index, %scale: f32,
                     %gate_domain: index {gdn.flag = "gate_domain"},
                     %beta_is_logit: i1 {gdn.flag = "beta_is_logit"},
                     %l2norm: i1 {gdn.flag = "qk_l2norm"})
    attributes {llvm.emit_c_interface,
                // Kernels of their own for the two flag sets serving code
                // uses (gdn-specialize-entries): the gate computed in the
                // kernel from `a` with beta as a logit (the pool
                // interface's inputs), and log gates with beta given (vLLM's
                // Qwen3-Next layer), both with l2norm. Other calls run
                // @gdn_paged itself, with its branches.
                gdn.specialize = [
                  {gate_domain = 0 : index, beta_is_logit = true, qk_l2norm = true},
                  {gate_domain = 1 : index, beta_is_logit = false, qk_l2norm = true}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %C = func.call @chunk_size() : () -> index
  %last_row = func.call @chunk_last_row() : () -> index
  %b = gdn.program_id 1
  %x = gdn.program_id 0
  // Each head's V rows are spread over ceil(V / Vb) programs, Vb the
  // !state tile's row count (V padded to the tile in the last block); with
  // Vb >= V this is (program_id 0, 0).
  %V = memref.dim %vm, %c2 : !v_mem
  %rows = tensor.empty() : !state
  %Vb = tensor.dim %rows, %c0 : !state
  %hv, %v0 = gdn.program_rows %x of %V by %Vb
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
    // L = (pages - 1) * page_size + last_page_len; prefix p = L - n.
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

    // Initial state: zero without a prefix, else the page holding token p-1.
    %no_prefix = arith.cmpi eq, %p, %c0 : index
    %m_in = scf.if %no_prefix -> (!state) {
      %zero = arith.constant 0.0 : f32
      %z = tensor.splat %zero : !state
      scf.yield %z : !state
    } else {
      %last_prefix = arith.subi %p, %c1 : index
      %pn = arith.divui %last_prefix, %page_size : index
      %page = gdn.page_lookup %page_indices, %page_indptr[%b, %pn] : memref<?xi64>, memref<?xi64>
      %m = gdn.state_load %pool[%page, %hv, %v0] : !pool_mem -> !state
      scf.yield %m : !state
    }

    // Chunks cover absolute positions [C c, C c + C) clipped to [p, L).
    %c_first = arith.divui %p, %C : index
    %L_up = arith.addi %L, %last_row : index
    %c_end = arith.divui %L_up, %C : index
    %slot0 = func.call @first_call_slot(%t0, %b) : (index, index) -> index
    %m_out = gdn.chunk_scan %c_first to %c_end slots from %slot0 init(%m_in : !state)
    prepare {
    ^bb0(%c: index):
      %t, %n, %e = func.call @paged_chunk_rows(%c, %p, %L, %t0)
          : (index, index, index, index) -> (index, index, index)
      %q = gdn.tile_load %qm[%t, %h, %c0] dims [0, 2] rows %n : !qk_mem -> !qk_in
      %k = gdn.tile_load %km[%t, %h, %c0] dims [0, 2] rows %n : !qk_mem -> !qk_in
      %v = gdn.tile_load %vm[%t, %hv, %v0] dims [0, 2] rows %n : !v_mem -> !v_in
      %gin = gdn.tile_load %gate_m[%t, %hv] dims [0] rows %n : memref<?x?xf32> -> !chunk_vec
      %bin = gdn.tile_load %beta_m[%t, %hv] dims [0] rows %n : memref<?x?xf32> -> !chunk_vec
      %g = scf.index_switch %gate_domain -> !chunk_vec
      case 0 {
        %r = gdn.gate raw %gin A_log(%alog) dt_bias(%dtb) : !chunk_vec
        scf.yield %r : !chunk_vec
      }
      case 2 {
        %r = gdn.gate linear %gin : !chunk_vec
        scf.yield %r : !chunk_vec
      }
      default {
        %r = gdn.gate log %gin : !chunk_vec
        scf.yield %r : !chunk_vec
      }
      %beta = scf.if %beta_is_logit -> (!chunk_vec) {
        %r = gdn.sigmoid %bin : !chunk_vec
        scf.yield %r : !chunk_vec
      } else {
        scf.yield %bin : !chunk_vec
      }
      %w, %tm, %beta_rows, %kn, %qn, %gamma = func.call @chunk_solve(%q, %k, %g, %beta, %n, %l2norm)
          : (!qk_in, !qk_in, !chunk_vec, !chunk_vec, index, i1)
          -> (!qk_tile, !chunk_sq, !chunk_vec, !qk_tile, !qk_tile, !chunk_vec)
      %u = func.call @wy_values(%tm, %v, %beta_rows) : (!chunk_sq, !v_in, !chunk_vec) -> !v_tile
      %qk = func.call @chunk_attention(%qn, %kn, %gamma) : (!qk_tile, !qk_tile, !chunk_vec) -> !chunk_sq
      gdn.yield %w, %u, %kn, %qn, %qk, %gamma : !qk_tile, !v_tile, !qk_tile, !qk_tile, !chunk_sq, !chunk_vec
    } step {
    ^bb0(%c: index, %w: !qk_tile, %u: !v_tile, %kn: !qk_tile, %qn: !qk_tile,
         %qk: !chunk_sq, %gamma: !chunk_vec,
         %m: !state):
      // Checkpoint after a token that ends a page: sequence page e/ps - 1.
      // Its page is looked up before the step's matmuls (the sequence's
      // first page when there is no checkpoint, a page it always has), so
      // that the lookup's dependent loads are in flight while they run.
      %t, %n, %e = func.call @paged_chunk_rows(%c, %p, %L, %t0)
          : (index, index, index, index) -> (index, index, index)
      %rem = arith.remui %e, %page_size : index
      %at_boundary = arith.cmpi eq, %rem, %c0 : index
      %pn = arith.divui %e, %page_size : index
      %pn1 = arith.subi %pn, %c1 : index
      %pn_checkpoint = arith.select %at_boundary, %pn1, %c0 : index
      %page = gdn.page_lookup %page_indices, %page_indptr[%b, %pn_checkpoint] : memref<?xi64>, memref<?xi64>
      %m1, %vn = func.call @chunk_step(%w, %u, %kn, %gamma, %m)
          : (!qk_tile, !v_tile, !qk_tile, !chunk_vec, !state) -> (!state, !v_tile)
      scf.if %at_boundary {
        gdn.state_store %m1, %pool[%page, %hv, %v0] : !state, !pool_mem
      }
      gdn.yield %m1, %vn : !state, !v_tile
    } emit {
    ^bb0(%c: index, %w: !qk_tile, %u: !v_tile, %kn: !qk_tile, %qn: !qk_tile,
         %qk: !chunk_sq, %gamma: !chunk_vec,
         %m: !state, %vn: !v_tile):
      %t, %n, %e = func.call @paged_chunk_rows(%c, %p, %L, %t0)
          : (index, index, index, index) -> (index, index, index)
      %o = func.call @chunk_output(%qn, %qk, %gamma, %m, %vn, %scale)
          : (!qk_tile, !chunk_sq, !chunk_vec, !state, !v_tile, f32) -> !v_in
      gdn.tile_store %o, %om[%t, %hv, %v0] dims [0, 2] rows %n : !v_in, !v_mem
    } transition {
    ^bb0(%c: index, %w: !qk_tile, %u: !v_tile, %kn: !qk_tile, %qn: !qk_tile,
         %qk: !chunk_sq, %gamma: !chunk_vec,
         %ma: f32, %mb: !kk, %mr: !state):
      %ta, %tb, %tr = func.call @chunk_transition(%w, %u, %kn, %gamma, %ma, %mb, %mr)
          : (!qk_tile, !v_tile, !qk_tile, !chunk_vec, f32, !kk, !state)
            -> (f32, !kk, !state)
      gdn.yield %ta, %tb, %tr : f32, !kk, !state
    }
    // The final state goes to the last page.
    %last_page = gdn.page_lookup %page_indices, %page_indptr[%b, %full] : memref<?xi64>, memref<?xi64>
    gdn.state_store %m_out, %pool[%last_page, %hv, %v0] : !state, !pool_mem
  }
  return
}
