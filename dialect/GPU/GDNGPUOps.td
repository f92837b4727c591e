//===- GDNGPUOps.td - ops of the gdn_gpu dialect ----------*- tablegen -*-===//

#ifndef GDN_GPU_OPS_TD
#define GDN_GPU_OPS_TD

include "GDNGPULayouts.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GDNGPU_ConvertLayoutOp : GDNGPU_Op<"convert_layout",
    [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "move a tile from one layout to another";
  let description = [{
    The same tile, held by other threads or in shared memory. Lowered to
    register permutations, warp shuffles or a trip through shared memory,
    whichever the pair of layouts allows; `gdn-gpu-remove-layout-conversions`
    removes the ones that are not needed. Converting to the layout a tile
    already has folds away, and so does a conversion of a conversion.

    ```mlir
    %acc = gdn_gpu.convert_layout %x
        : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Token tiles through a shared-memory ring, by TMA (gdn-gpu-pipeline-loads)
//===----------------------------------------------------------------------===//
//
// A ring is named by an integer `ring` attribute, not an SSA value: the
// lowering finds its bytes in the kernel's shared-memory plan by that
// number. Its ops have memory effects so that nothing moves them past
// each other or past the barriers between them.

def GDNGPU_LoadRingOp : GDNGPU_Op<"load_ring",
    [MemoryEffects<[MemWrite]>]> {
  let summary = "declare and initialise a ring of shared-memory slots";
  let description = [{
    `stages` slots of `slot_bytes` bytes each (1024-byte aligned, as TMA's
    128-byte swizzle needs), and one mbarrier per slot. Thread 0 initialises
    the barriers (arrival count 1: the thread that issues a slot's loads);
    the block then meets. Placed at the kernel's entry, once per ring.

    ```mlir
    gdn_gpu.load_ring 0 stages 2 slot_bytes 40960
    ```
  }];
  let arguments = (ins I64Attr:$ring, I64Attr:$stages, I64Attr:$slot_bytes);
  let assemblyFormat = "$ring `stages` $stages `slot_bytes` $slot_bytes attr-dict";
  let hasVerifier = 1;
}

def GDNGPU_RingExpectOp : GDNGPU_Op<"ring_expect",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "arrive on a slot's barrier, expecting the bytes of its loads";
  let description = [{
    `mbarrier.arrive.expect_tx` on slot `slot`'s barrier: its phase completes
    when `bytes` bytes of TMA loads have landed. Issued by one thread, before
    the slot's `gdn_gpu.tma_load`s.
  }];
  let arguments = (ins I64Attr:$ring, Index:$slot, I64Attr:$bytes);
  let assemblyFormat = "$ring `slot` $slot `bytes` $bytes attr-dict";
}

def GDNGPU_TmaLoadOp : GDNGPU_Op<"tma_load",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "one TMA box from global memory into a ring slot";
  let description = [{
    `cp.async.bulk.tensor` of the box at `coords` (one per dimension of the
    tensor map, innermost first) of the tensor map `map` (a kernel
    parameter: a CUtensorMap passed as a grid constant, encoded by the
    runtime from the kernel's `gdn.tensor_maps` entry) into slot `slot` of
    ring `ring`, `offset` bytes into the slot. Completes on the slot's
    barrier. Coordinates past the tensor's bounds read as zero.

    ```mlir
    gdn_gpu.tma_load %map[%c0, %h, %t] ring 0 slot %s offset 8192 : !llvm.ptr
    ```
  }];
  let arguments = (ins AnyType:$map, Variadic<Index>:$coords, I64Attr:$ring,
                       Index:$slot, I64Attr:$offset);
  let assemblyFormat = [{
    $map `[` $coords `]` `ring` $ring `slot` $slot `offset` $offset attr-dict
    `:` type($map)
  }];
}

def GDNGPU_RingWaitOp : GDNGPU_Op<"ring_wait",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until a slot's loads have landed";
  let description = [{
    Every thread waits for the phase of parity `phase` (0 or 1) of slot
    `slot`'s barrier: the slot's `n`-th fill, counted from 0, has parity
    `n % 2`.
  }];
  let arguments = (ins I64Attr:$ring, Index:$slot, Index:$phase);
  let assemblyFormat = "$ring `slot` $slot `phase` $phase attr-dict";
}

def GDNGPU_RingReadOp : GDNGPU_Op<"ring_read", [MemoryEffects<[MemRead]>]> {
  let summary = "a tile out of a ring slot, into registers";
  let description = [{
    The rank-2, 16-bit tile that TMA boxes of 128 bytes a row, with the
    128-byte swizzle, left at `offset` bytes into slot `slot`: column slabs
    of 64 elements, each `rows x 128` bytes (the `#gdn_gpu.nvmma_shared`
    image of a K-major operand). Each thread reads the elements its layout
    gives it; rows at or past `rows` (when given) read as zero, like
    `gdn.tile_load`'s ragged rows.

    ```mlir
    %q = gdn_gpu.ring_read 0 slot %s offset 0 rows %n
        : tensor<64x128xbf16, #blocked>
    ```
  }];
  let arguments = (ins I64Attr:$ring, Index:$slot, I64Attr:$offset,
                       Optional<Index>:$rows);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $ring `slot` $slot `offset` $offset (`rows` $rows^)? attr-dict
    `:` type($result)
  }];
  let hasVerifier = 1;
}

#endif // GDN_GPU_OPS_TD
