//===- ScanOps.td - the chunk scan a schedule lowers ------*- tablegen -*-===//

#ifndef GDN_SCAN_OPS_TD
#define GDN_SCAN_OPS_TD

include "GDNDialect.td"
include "GDNTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GDN_ChunkScanOp : GDN_Op<"chunk_scan", [
    RecursiveMemoryEffects, AllTypesMatch<["init", "result"]>,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "the serial pass over a sequence's chunks, split into stages";
  let description = [{
    Carries a state (a `[V, K]` fp32 tile) over chunks `lower .. upper - 1`
    of one program. The body is split into the stages a schedule may place
    in different kernels; the op itself fixes no loop, no kernel boundary
    and no storage for the values that pass between stages (that is the
    job of `gdn-schedule`, see docs/Schedules.md).

    - `prepare(%c)` computes what does not depend on the state (loads,
      gates, the WY factors) and yields it: the *prepared values*, tiles.
    - `step(%c, prepared..., %m)` takes the state entering chunk `%c` and
      yields the state leaving it, then any *step values* the output needs
      (tiles). It may write the state pool (checkpoints).
    - `emit(%c, prepared..., %m, step values...)` writes the chunk's output.
    - `transition(%c, prepared...)` (optional) yields the chunk's effect on
      the state as `(a, B, R)`: `M_out = a M_in + M_in B + R` with `a` an
      f32, `B` a `[K, K]` tile and `R` a state tile. Schedules that split a
      sequence over blocks (`split-seq`) compose these per segment.
      Folding form: `transition(%c, prepared..., %a, %B, %R)` takes the map
      of the chunks before `%c` (the identity `(1, 0, 0)` first) and yields
      it composed with chunk `%c`'s, so a kernel can compose through a
      factored `B` (GDN's `-W^T K`) in fewer flops than the schedule's
      generic `B1 B2`. The verifier tells the forms apart by the argument
      count and checks the map's types.

    `slots from %base` (optional) numbers the program's chunks among the
    whole call's: chunk `c` is the call's chunk slot `%base + (c - lower)`,
    distinct for every sequence. `gdn-schedule` then gives workspaces per
    value head (`staged prepare-per=head`) one slot axis for the call
    (`ceil(T / C) + 2 B + 1` slots, T the call's tokens, B its sequences:
    the runtime's `call-chunks` axis) instead of one per sequence as long
    as the longest (`B x slots`), which at many sequences of unknown
    length is most of the memory. Other workspaces, and all without `slots
    from`, are per sequence. `gdn_chunked.mlir`
    passes `floor(t0 / C) + 2 b`, t0 the sequence's first token: a paged
    sequence of n new tokens spans at most `floor(n / C) + 2` chunks.

    `prepare` and `transition` may read memory but not write it. Every
    region may use values defined above the op. The result is the state
    after the last chunk (`init` when there is none).

    ```mlir
    %m_out = gdn.chunk_scan %c0 to %nc init(%m_in : tensor<128x128xf32>)
    prepare {
    ^bb0(%c: index):
      ...
      gdn.yield %w, %u : tensor<64x128xf32>, tensor<64x128xf32>
    } step {
    ^bb0(%c: index, %w: tensor<64x128xf32>, %u: tensor<64x128xf32>,
         %m: tensor<128x128xf32>):
      ...
      gdn.yield %m1, %vn : tensor<128x128xf32>, tensor<64x128xf32>
    } emit {
    ^bb0(%c: index, %w: ..., %u: ..., %m: ..., %vn: ...):
      gdn.tile_store ...
      gdn.yield
    }
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper, GDN_F32Matrix:$init,
                       Optional<Index>:$slotBase);
  let results = (outs GDN_F32Matrix:$result);
  let regions = (region SizedRegion<1>:$prepare, SizedRegion<1>:$step,
                        SizedRegion<1>:$emit, AnyRegion:$transition);
  let assemblyFormat = [{
    $lower `to` $upper (`slots` `from` $slotBase^)? `init` `(` $init `:` type($init) `)` attr-dict-with-keyword
    `prepare` $prepare `step` $step `emit` $emit (`transition` $transition^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Types of the values `prepare` yields (and later stages receive).
    ::llvm::SmallVector<::mlir::Type> getPreparedTypes();
    /// Types of the values `step` yields after the state.
    ::llvm::SmallVector<::mlir::Type> getStepValueTypes();
    bool hasTransition() { return !getTransition().empty(); }
    /// Whether `transition` takes the map so far (a, B, R) after the
    /// prepared values and yields it composed with the chunk's.
    bool transitionFolds() {
      return hasTransition() && getTransition().front().getNumArguments() ==
                                    getPreparedTypes().size() + 4;
    }
  }];
}

def GDN_YieldOp : GDN_Op<"yield", [Pure, Terminator,
                                   HasParent<"ChunkScanOp">]> {
  let summary = "ends a stage of gdn.chunk_scan, handing on its values";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // GDN_SCAN_OPS_TD
