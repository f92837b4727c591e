//===- GDNDialect.td - the gdn tile dialect ---------------*- tablegen -*-===//
//
// The dialect in which chunked Gated DeltaNet prefill kernels are written:
// ops on tiles (statically shaped ranked tensors) plus loads and stores that
// move tiles between memrefs and values.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TD
#define GDN_DIALECT_TD

include "mlir/IR/OpBase.td"

def GDN_Dialect : Dialect {
  let name = "gdn";
  let summary = "Tile operations for chunked Gated DeltaNet prefill";
  let description = [{
    A Triton-style tile language for the chunked (WY) form of Gated DeltaNet.
    A kernel is a `func.func` whose body computes on tiles: ranked tensors
    with static shapes (a chunk of 64 tokens times a head dimension, or a
    `[V, K]` state). Tiles enter and leave through `gdn.tile_load` /
    `gdn.tile_store` (with a row count for ragged tails) and, for the
    recurrent state, through `gdn.state_load` / `gdn.state_store` on a paged
    fp32 pool. Control flow is `scf`; scalar and elementwise arithmetic is
    `arith` / `math` on scalars or tiles.

    The dialect keeps ops few and orthogonal: the WY construction is written
    with `gdn.matmul` (masked, decayed), `gdn.scale_rows` and
    `gdn.tri_inverse` rather than one monolithic op.
  }];
  let cppNamespace = "::mlir::gdn";
  let useDefaultAttributePrinterParser = 1;
}

class GDN_Op<string mnemonic, list<Trait> traits = []>
    : Op<GDN_Dialect, mnemonic, traits>;

#endif // GDN_DIALECT_TD
