// RUN: gdn-opt %s -split-input-file -verify-diagnostics
// One case per verifier rule of the gdn ops.

func.func @program_id_axis() {
  // expected-error @+1 {{'axis' failed to satisfy constraint}}
  %0 = gdn.program_id 3
  return
}

// -----

func.func @tile_load_index_count(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{expects 3 indices for a rank-3 memref, got 2}}
  %t = gdn.tile_load %m[%i, %i] dims [0, 2] : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  return
}

// -----

func.func @tile_load_dims_count(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{'dims' has 1 entries but the tile has rank 2}}
  %t = gdn.tile_load %m[%i, %i, %i] dims [0] : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  return
}

// -----

func.func @tile_load_dim_range(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{dims[1] = 3 is not a dimension of the rank-3 memref}}
  %t = gdn.tile_load %m[%i, %i, %i] dims [0, 3] : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  return
}

// -----

func.func @tile_load_dim_twice(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{dims names memref dimension 2 twice}}
  %t = gdn.tile_load %m[%i, %i, %i] dims [2, 2] : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  return
}

// -----

func.func @tile_prefetch_shape_rank(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{'shape' has 1 entries but 'dims' has 2}}
  gdn.tile_prefetch %m[%i, %i, %i] dims [0, 2] shape [64] : memref<?x?x128xbf16>
  return
}

// -----

func.func @tile_prefetch_empty_shape(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{'shape' must be positive}}
  gdn.tile_prefetch %m[%i, %i, %i] dims [0, 2] shape [0, 128] : memref<?x?x128xbf16>
  return
}

// -----

func.func @tile_prefetch_rank0(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{prefetches a rank-1 or rank-2 tile, got 'shape' of rank 0}}
  gdn.tile_prefetch %m[%i, %i, %i] dims [] shape [] : memref<?x?x128xbf16>
  return
}

// -----

func.func @tile_prefetch_rank3(%m: memref<?x64x128xbf16>, %i: index) {
  // expected-error @+1 {{prefetches a rank-1 or rank-2 tile, got 'shape' of rank 3}}
  gdn.tile_prefetch %m[%i, %i, %i] dims [0, 1, 2] shape [1, 64, 128] : memref<?x64x128xbf16>
  return
}

// -----

func.func @tile_prefetch_shared(%m: memref<64x128xbf16, 3>, %i: index) {
  // expected-error @+1 {{prefetches global memory: the source must be in the default memory space, got 3}}
  gdn.tile_prefetch %m[%i, %i] dims [0, 1] shape [64, 128] : memref<64x128xbf16, 3>
  return
}

// -----

func.func @tile_prefetch_index_elements(%m: memref<?xindex>, %i: index) {
  // expected-error @+1 {{needs integer or float elements, got 'index'}}
  gdn.tile_prefetch %m[%i] dims [0] shape [64] : memref<?xindex>
  return
}

// -----

func.func @tile_load_element_type(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{tile element type 'f32' differs from memref element type 'bf16'}}
  %t = gdn.tile_load %m[%i, %i, %i] dims [0, 2] : memref<?x?x128xbf16> -> tensor<64x128xf32>
  return
}

// -----

func.func @tile_load_dynamic_tile(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{result #0 must be rank-1 or rank-2 statically shaped tile}}
  %t = gdn.tile_load %m[%i, %i, %i] dims [0, 2] : memref<?x?x128xbf16> -> tensor<?x128xbf16>
  return
}

// -----

func.func @tile_load_rank3(%m: memref<?x?x128xbf16>, %i: index) {
  // expected-error @+1 {{result #0 must be rank-1 or rank-2 statically shaped tile}}
  %t = gdn.tile_load %m[%i, %i, %i] dims [0, 1, 2] : memref<?x?x128xbf16> -> tensor<4x4x128xbf16>
  return
}

// -----

func.func @tile_store_index_count(%t: tensor<64xf32>, %m: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{expects 2 indices for a rank-2 memref, got 1}}
  gdn.tile_store %t, %m[%i] dims [0] : tensor<64xf32>, memref<?x?xf32>
  return
}

// -----

func.func @tile_store_element_type(%t: tensor<64xf32>, %m: memref<?x?xbf16>, %i: index) {
  // expected-error @+1 {{tile element type 'f32' differs from memref element type 'bf16'}}
  gdn.tile_store %t, %m[%i, %i] dims [0] : tensor<64xf32>, memref<?x?xbf16>
  return
}

// -----

func.func @mask_rows_type(%t: tensor<64xf32>, %n: index) {
  // expected-error @+1 {{custom op 'gdn.mask_rows' invalid kind of type specified}}
  %m = gdn.mask_rows %t, %n : memref<64xf32>
  return
}

// -----

func.func @gate_raw_params(%a: tensor<64xf32>, %x: f32) {
  // expected-error @+1 {{raw gate needs both A_log(...) and dt_bias(...)}}
  %g = gdn.gate raw %a A_log(%x) : tensor<64xf32>
  return
}

// -----

func.func @gate_log_params(%a: tensor<64xf32>, %x: f32) {
  // expected-error @+1 {{log gate takes no A_log / dt_bias}}
  %g = gdn.gate log %a A_log(%x) dt_bias(%x) : tensor<64xf32>
  return
}

// -----

func.func @gate_unknown_domain(%a: tensor<64xf32>) {
  // expected-error @+2 {{expected ::mlir::gdn::GateDomain to be one of: raw, log, linear}}
  // expected-error @+1 {{failed to parse GDN_GateDomainAttr parameter}}
  %g = gdn.gate sigmoid %a : tensor<64xf32>
  return
}

// -----

func.func @gate_matrix(%a: tensor<64x2xf32>) {
  // expected-error @+1 {{operand #0 must be rank-1 statically shaped f32 tile}}
  %g = gdn.gate log %a : tensor<64x2xf32>
  return
}

// -----

func.func @sigmoid_bf16(%a: tensor<64xbf16>) {
  // expected-error @+1 {{operand #0 must be rank-1 or rank-2 statically shaped f32 tile}}
  %g = gdn.sigmoid %a : tensor<64xbf16>
  return
}

// -----

func.func @cumsum_matrix(%a: tensor<64x64xf32>) {
  // expected-error @+1 {{operand #0 must be rank-1 statically shaped f32 tile}}
  %g = gdn.cumsum %a : tensor<64x64xf32>
  return
}

// -----

func.func @l2norm_eps(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{eps must be positive, got 0}}
  %n = gdn.l2norm %x {eps = 0.0 : f32} : tensor<64x128xf32>
  return
}

// -----

func.func @l2norm_vector(%x: tensor<64xf32>) {
  // expected-error @+1 {{operand #0 must be rank-2 statically shaped f32 tile}}
  %n = gdn.l2norm %x : tensor<64xf32>
  return
}

// -----

func.func @scale_rows_length(%x: tensor<64x128xf32>, %s: tensor<32xf32>) {
  // expected-error @+1 {{scale has 32 entries but the tile has 64 rows}}
  %r = gdn.scale_rows %x, %s : tensor<64x128xf32>, tensor<32xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<64x128xf32>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{operand element types differ: 'f32' vs 'bf16'}}
  %r = gdn.matmul %a, %b transpose_b mask none : tensor<64x128xf32>, tensor<64x128xbf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<64x128xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+1 {{contraction sizes differ: lhs gives 128, rhs gives 64}}
  %r = gdn.matmul %a, %b mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<64x128xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+1 {{result must be 64x64, got 'tensor<64x32xf32>'}}
  %r = gdn.matmul %a, %b transpose_b mask none : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x32xf32>
  return
}

// -----

func.func @matmul_acc_masked(%a: tensor<64x128xf32>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{acc needs mask none: the mask and decay would also apply to the accumulator}}
  %r = gdn.matmul %a, %a transpose_b mask causal acc(%c : tensor<64x64xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @matmul_acc_type(%a: tensor<64x128xf32>, %c: tensor<64x32xf32>) {
  // expected-error @+1 {{acc must have the result's type 'tensor<64x64xf32>', got 'tensor<64x32xf32>'}}
  %r = gdn.matmul %a, %a transpose_b mask none acc(%c : tensor<64x32xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @matmul_result_bf16(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{result #0 must be rank-2 statically shaped f32 tile}}
  %r = gdn.matmul %a, %b transpose_b mask none : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
  return
}

// -----

func.func @matmul_mask_square(%a: tensor<64x128xf32>, %m: tensor<128x128xf32>) {
  // expected-error @+1 {{a mask or decay needs a square result, got 64x128}}
  %r = gdn.matmul %a, %m mask causal : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  return
}

// -----

func.func @matmul_decay_unmasked(%a: tensor<64x128xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{decay needs a causal or strict mask}}
  %r = gdn.matmul %a, %a transpose_b mask none decay(%g : tensor<64xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @matmul_decay_length(%a: tensor<64x128xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{decay has 32 entries, expected 64}}
  %r = gdn.matmul %a, %a transpose_b mask causal decay(%g : tensor<32xf32>) : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @matmul_unknown_mask(%a: tensor<64x128xf32>) {
  // expected-error @+2 {{expected ::mlir::gdn::MaskKind to be one of: none, causal, strict}}
  // expected-error @+1 {{failed to parse GDN_MaskKindAttr parameter}}
  %r = gdn.matmul %a, %a transpose_b mask upper : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @tri_inverse_square(%a: tensor<64x32xf32>) {
  // expected-error @+1 {{needs a square tile, got 'tensor<64x32xf32>'}}
  %t = gdn.tri_inverse %a : tensor<64x32xf32>
  return
}

// -----

func.func @page_lookup_type(%pi: memref<?xf32>, %pp: memref<?xi32>, %i: index) {
  // expected-error @+1 {{operand #0 must be 1D memref of 32-bit signless integer or 64-bit signless integer values}}
  %p = gdn.page_lookup %pi, %pp[%i, %i] : memref<?xf32>, memref<?xi32>
  return
}

// -----

func.func @state_head_size(%pool: memref<?x?x96x128xf32>, %i: index) {
  // expected-error @+1 {{state tile dimension 0 (V) is 96, expected a positive multiple of 64}}
  %m = gdn.state_load %pool[%i, %i] : memref<?x?x96x128xf32> -> tensor<96x128xf32>
  return
}

// -----

func.func @state_pool_mismatch(%pool: memref<?x?x128x100xf32>, %i: index) {
  // expected-error @+1 {{state tile 'tensor<128x64xf32>' does not cover pool dimension 3 (K = 100)}}
  %m = gdn.state_load %pool[%i, %i] : memref<?x?x128x100xf32> -> tensor<128x64xf32>
  return
}

// -----

func.func @state_row_block_without_row(%pool: memref<?x?x128x64xf32>, %i: index) {
  // expected-error @+1 {{state tile 'tensor<64x64xf32>' does not cover pool dimension 2 (V = 128)}}
  %m = gdn.state_load %pool[%i, %i] : memref<?x?x128x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @state_pool_dtype(%pool: memref<?x?x128x128xf64>, %i: index) {
  // expected-error @+1 {{operand #0 must be 4D memref of 32-bit float or bfloat16 type or 16-bit float values}}
  %m = gdn.state_load %pool[%i, %i] : memref<?x?x128x128xf64> -> tensor<128x128xf32>
  return
}

// -----

func.func @state_store_head_size(%m: tensor<128x32xf32>, %pool: memref<?x?x128x32xf32>, %i: index) {
  // expected-error @+1 {{state tile dimension 1 (K) is 32, expected a positive multiple of 64}}
  gdn.state_store %m, %pool[%i, %i] : tensor<128x32xf32>, memref<?x?x128x32xf32>
  return
}
