//===- TileOps.td - program ids, tile loads and stores ----*- tablegen -*-===//

#ifndef GDN_TILE_OPS_TD
#define GDN_TILE_OPS_TD

include "GDNDialect.td"
include "GDNTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GDN_ProgramIdOp : GDN_Op<"program_id", [Pure]> {
  let summary = "index of this program instance along a launch-grid axis";
  let description = [{
    Like Triton's `tl.program_id`: a kernel runs once per point of a launch
    grid of up to three axes. The CPU lowering turns program ids into trailing
    `index` arguments of the kernel function and the driver loops over the
    grid; the GPU lowering maps them to block ids.

    ```mlir
    %hv = gdn.program_id 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
}

def GDN_ProgramRowsOp : GDN_Op<"program_rows", [Pure]> {
  let summary = "the value head and the first state row a program holds";
  let description = [{
    A kernel whose state rows are split over programs (the schedule's
    `v-block`) spreads each value head's `rows` rows over
    `ceil(rows / block)` consecutive programs of grid axis 0:

    ```mlir
    %hv, %v0 = gdn.program_rows %x of %V by %Vb
    ```

    gives program `%x` value head `%x / ceil(V / Vb)` and first row
    `(%x mod ceil(V / Vb)) * Vb`. Saying so with an op, rather than with
    the arithmetic, tells a schedule which values differ between the
    programs of one head (those that depend on `%v0`): `staged
    prepare-per=head` runs what does not depend on them once per head.
    gdn-schedule expands the op into that arithmetic.
  }];
  let arguments = (ins Index:$program, Index:$rows, Index:$block);
  let results = (outs Index:$head, Index:$first_row);
  let assemblyFormat = "$program `of` $rows `by` $block attr-dict";
}

def GDN_TileLoadOp : GDN_Op<"tile_load", [AttrSizedOperandSegments]> {
  let summary = "load a tile from a memref, zero-filling rows past a row count";
  let description = [{
    Reads a rank-1 or rank-2 tile out of `source`. `indices` give the corner
    (one index per memref dimension); `dims` name the memref dimensions the
    tile's dimensions walk along, in order (the first is the row dimension).
    Element `(r, c)` of the tile is `source[indices + r * e(dims[0]) +
    c * e(dims[1])]`. When `rows` is given, tile rows `r >= rows` are not read
    and hold zero: a ragged last chunk.

    Where a memref dimension is static and not a multiple of the size of the
    tile dimension walking it, elements whose index reaches past it are
    padding: they are not read and hold zero (as Triton's masked loads with
    power-of-two blocks). A head size of 100 loads as a 128-wide tile.

    ```mlir
    // 64 tokens of head %h of q[T, H, K], starting at token %t0.
    %q = gdn.tile_load %qm[%t0, %h, %c0] dims [0, 2] rows %n
        : memref<?x?x128xbf16> -> tensor<64x128xbf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$source,
                       Variadic<Index>:$indices,
                       DenseI64ArrayAttr:$dims,
                       Optional<Index>:$rows);
  let results = (outs GDN_Tile:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` `dims` $dims (`rows` $rows^)? attr-dict
    `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GDN_TileStoreOp : GDN_Op<"tile_store", [AttrSizedOperandSegments]> {
  let summary = "store a tile into a memref, skipping rows past a row count";
  let description = [{
    The inverse of `gdn.tile_load`: writes `value` into `dest` at `indices`
    along `dims`. When `rows` is given, tile rows `r >= rows` are not written;
    nor is padding (elements past a static memref dimension that is not a
    multiple of the tile's size along it).

    ```mlir
    gdn.tile_store %o, %om[%t0, %hv, %c0] dims [0, 2] rows %n
        : tensor<64x128xbf16>, memref<?x?x128xbf16>
    ```
  }];
  let arguments = (ins GDN_Tile:$value,
                       Arg<AnyMemRef, "dest", [MemWrite]>:$dest,
                       Variadic<Index>:$indices,
                       DenseI64ArrayAttr:$dims,
                       Optional<Index>:$rows);
  let assemblyFormat = [{
    $value `,` $dest `[` $indices `]` `dims` $dims (`rows` $rows^)? attr-dict
    `:` type($value) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def GDN_TilePrefetchOp : GDN_Op<"tile_prefetch", [AttrSizedOperandSegments]> {
  let summary = "bring the memory of a tile into the L2 cache ahead of its load";
  let description = [{
    A hint: the block asks for the cache lines of the rank-1 or rank-2 tile
    of `shape` at `indices` along `dims` (the same corner and dims as a
    `gdn.tile_load` of that shape) to be brought into the L2 cache, and goes
    on without waiting. Rows at or past `rows` (when given) are not asked
    for, nor is padding (as `gdn.tile_load`). Nothing is read into
    registers and nothing changes in memory;
    `gdn-gpu-prefetch-next-chunk` places these for the next chunk's loads.
    The source is global memory (no memory space); the lowering needs the
    kernel's one-dimensional block size (`known_block_size`).

    ```mlir
    // The next chunk's 64 tokens of q[T, H, K], head %h.
    gdn.tile_prefetch %qm[%t1, %h, %c0] dims [0, 2] shape [64, 128] rows %n1
        : memref<?x?x128xbf16>
    ```
  }];
  // Like memref.prefetch, the source is marked written: a hint that reads
  // nothing into a value would otherwise be removed as dead.
  let arguments = (ins Arg<AnyMemRef, "prefetched", [MemWrite]>:$source,
                       Variadic<Index>:$indices,
                       DenseI64ArrayAttr:$dims,
                       DenseI64ArrayAttr:$shape,
                       Optional<Index>:$rows);
  let assemblyFormat = [{
    $source `[` $indices `]` `dims` $dims `shape` $shape (`rows` $rows^)?
    attr-dict `:` type($source)
  }];
  let hasVerifier = 1;
}

def GDN_MaskRowsOp : GDN_Op<"mask_rows", [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "zero the rows of a tile at and past a row count";
  let description = [{
    `result[r, ...] = r < rows ? value[r, ...] : 0`. Padded rows of a ragged
    chunk must carry `g = 0` and `beta = 0` so they neither decay nor update
    the state; gates computed from zero-filled inputs are not zero, hence
    this op.

    ```mlir
    %g = gdn.mask_rows %graw, %n : tensor<64xf32>
    ```
  }];
  let arguments = (ins GDN_Tile:$value, Index:$rows);
  let results = (outs GDN_Tile:$result);
  let assemblyFormat = "$value `,` $rows attr-dict `:` type($value)";
}

#endif // GDN_TILE_OPS_TD
