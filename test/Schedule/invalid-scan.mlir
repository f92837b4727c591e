// RUN: gdn-opt %s -split-input-file -verify-diagnostics

func.func @step_must_yield_state_first(%m0: tensor<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'step' must yield the next state ('tensor<64x64xf32>') first}}
  %m = gdn.chunk_scan %c0 to %n init(%m0 : tensor<64x64xf32>)
  prepare {
  ^bb0(%c: index):
    gdn.yield
  } step {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
    %v = tensor.empty() : tensor<64xf32>
    gdn.yield %v : tensor<64xf32>
  } emit {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
  }
  return
}

// -----

func.func @prepared_values_are_static_tiles(%m0: tensor<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'prepare' yields 'index'; values passed between stages must be statically shaped f32 / bf16 / f16 tiles}}
  %m = gdn.chunk_scan %c0 to %n init(%m0 : tensor<64x64xf32>)
  prepare {
  ^bb0(%c: index):
    gdn.yield %c : index
  } step {
  ^bb0(%c: index, %p: index, %s: tensor<64x64xf32>):
    gdn.yield %s : tensor<64x64xf32>
  } emit {
  ^bb0(%c: index, %p: index, %s: tensor<64x64xf32>):
  }
  return
}

// -----

func.func @emit_receives_everything(%m0: tensor<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'emit' must take ('index', 'tensor<64xf32>', 'tensor<64x64xf32>') but takes ('index', 'tensor<64x64xf32>')}}
  %m = gdn.chunk_scan %c0 to %n init(%m0 : tensor<64x64xf32>)
  prepare {
  ^bb0(%c: index):
    %g = tensor.empty() : tensor<64xf32>
    gdn.yield %g : tensor<64xf32>
  } step {
  ^bb0(%c: index, %g: tensor<64xf32>, %s: tensor<64x64xf32>):
    gdn.yield %s : tensor<64x64xf32>
  } emit {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
  }
  return
}

// -----

func.func @prepare_only_reads(%m0: tensor<64x64xf32>, %n: index, %out: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %m = gdn.chunk_scan %c0 to %n init(%m0 : tensor<64x64xf32>)
  prepare {
  ^bb0(%c: index):
    // expected-error @+1 {{writes memory inside the 'prepare' stage of gdn.chunk_scan, which may only read}}
    gdn.tile_store %m0, %out[%c, %c0] dims [0, 1] : tensor<64x64xf32>, memref<?x64xf32>
    gdn.yield
  } step {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
    gdn.yield %s : tensor<64x64xf32>
  } emit {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
  }
  return
}

// -----

func.func @transition_is_affine(%m0: tensor<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'transition' must yield (f32, 'tensor<64x64xf32>', 'tensor<64x64xf32>'): M_out = a M_in + M_in B + R}}
  %m = gdn.chunk_scan %c0 to %n init(%m0 : tensor<64x64xf32>)
  prepare {
  ^bb0(%c: index):
    gdn.yield
  } step {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
    gdn.yield %s : tensor<64x64xf32>
  } emit {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
  } transition {
  ^bb0(%c: index):
    gdn.yield %m0 : tensor<64x64xf32>
  }
  return
}

// -----

func.func @folding_transition_takes_the_map(%m0: tensor<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'transition' must take ('index', 'f32', 'tensor<64x64xf32>', 'tensor<64x64xf32>') but takes ('index', 'f32', 'tensor<64x64xf32>', 'tensor<32x64xf32>'); a folding transition takes the map so far (f32, [K, K], state) after the prepared values}}
  %m = gdn.chunk_scan %c0 to %n init(%m0 : tensor<64x64xf32>)
  prepare {
  ^bb0(%c: index):
    gdn.yield
  } step {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
    gdn.yield %s : tensor<64x64xf32>
  } emit {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
  } transition {
  ^bb0(%c: index, %a: f32, %b: tensor<64x64xf32>, %r: tensor<32x64xf32>):
    gdn.yield %a, %b, %m0 : f32, tensor<64x64xf32>, tensor<64x64xf32>
  }
  return
}

// -----

func.func @transition_takes_either_form(%m0: tensor<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'transition' must take ('index') but takes ('index', 'f32'); a folding transition takes the map so far (f32, [K, K], state) after the prepared values}}
  %m = gdn.chunk_scan %c0 to %n init(%m0 : tensor<64x64xf32>)
  prepare {
  ^bb0(%c: index):
    gdn.yield
  } step {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
    gdn.yield %s : tensor<64x64xf32>
  } emit {
  ^bb0(%c: index, %s: tensor<64x64xf32>):
  } transition {
  ^bb0(%c: index, %a: f32):
    %z = arith.constant 0.0 : f32
    %t = tensor.splat %z : tensor<64x64xf32>
    gdn.yield %a, %t, %t : f32, tensor<64x64xf32>, tensor<64x64xf32>
  }
  return
}
