//===- StateOps.td - the paged state pool -----------------*- tablegen -*-===//

#ifndef GDN_STATE_OPS_TD
#define GDN_STATE_OPS_TD

include "GDNDialect.td"
include "GDNTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GDN_PageLookupOp : GDN_Op<"page_lookup"> {
  let summary = "pool page id of a sequence's n-th page in a CSR page table";
  let description = [{
    Returns `page_indices[page_indptr[seq] + page]` as an index: sequence
    `seq` owns `page_indices[page_indptr[seq] .. page_indptr[seq + 1])`.
    No bounds are checked here; the driver validates the page table before
    a launch (docs/Spec.md's preconditions).

    ```mlir
    %pid = gdn.page_lookup %page_indices, %page_indptr[%b, %n]
        : memref<?xi32>, memref<?xi32>
    ```
  }];
  let arguments = (ins Arg<GDN_IndexArray, "page ids", [MemRead]>:$page_indices,
                       Arg<GDN_IndexArray, "CSR offsets", [MemRead]>:$page_indptr,
                       Index:$seq, Index:$page);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    $page_indices `,` $page_indptr `[` $seq `,` $page `]` attr-dict
    `:` type($page_indices) `,` type($page_indptr)
  }];
}

def GDN_StateLoadOp : GDN_Op<"state_load"> {
  let summary = "read one head's [V, K] state (or a block of its rows) from a pool page";
  let description = [{
    Reads `pool[page, head, :, :]` of a `[P, HV, V, K]` pool as an fp32
    tile. A bf16 or fp16 pool is widened to fp32 as it is read (serving
    engines keep 16-bit state pools; the state is computed in fp32).
    The tile's dimensions are multiples of 64 that cover V and K: where the
    pool's V or K is not such a multiple, the tile pads it, and the padding
    reads as zero (a head size of 100 in a 128-wide tile).

    With a third index `row`, the tile is the block of state rows
    `pool[page, head, row : row + Vb, :]` (Vb the tile's first dimension):
    a kernel whose programs each own a block of a head's value rows (a
    V-split) reads its block this way. Rows past the pool's V are padding.

    ```mlir
    %m = gdn.state_load %pool[%pid, %hv]
        : memref<?x?x128x128xf32> -> tensor<128x128xf32>
    %m_half = gdn.state_load %pool[%pid, %hv, %v0]
        : memref<?x?x128x128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[F32, BF16, F16], [4]>, "pool", [MemRead]>:$pool,
                       Index:$page, Index:$head, Optional<Index>:$row);
  let results = (outs GDN_F32Matrix:$result);
  let assemblyFormat = [{
    $pool `[` $page `,` $head (`,` $row^)? `]` attr-dict `:` type($pool) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GDN_StateStoreOp : GDN_Op<"state_store"> {
  let summary = "write one head's [V, K] state (or a block of its rows) to a pool page";
  let description = [{
    Writes `value` to `pool[page, head, :, :]` (with `row`: to rows
    `row : row + Vb`); the inverse of `gdn.state_load`, with the same shape
    rules. Padding (elements past the pool's V or K) is not written. To a
    bf16 or fp16 pool the fp32 values are rounded to nearest, ties to even.

    ```mlir
    gdn.state_store %m, %pool[%pid, %hv]
        : tensor<128x128xf32>, memref<?x?x128x128xf32>
    ```
  }];
  let arguments = (ins GDN_F32Matrix:$value,
                       Arg<MemRefRankOf<[F32, BF16, F16], [4]>, "pool", [MemWrite]>:$pool,
                       Index:$page, Index:$head, Optional<Index>:$row);
  let assemblyFormat = [{
    $value `,` $pool `[` $page `,` $head (`,` $row^)? `]` attr-dict `:` type($value) `,` type($pool)
  }];
  let hasVerifier = 1;
}

#endif // GDN_STATE_OPS_TD
