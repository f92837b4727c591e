//===- GDNGPULayouts.td - tile layouts --------------------*- tablegen -*-===//
//
// The subset of Triton's layouts (TritonGPUAttrDefs.td) that GDN needs. A
// distributed layout maps (thread, register) to an element of a tile of a
// given shape; a shared layout says how a tile sits in shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_GPU_LAYOUTS_TD
#define GDN_GPU_LAYOUTS_TD

include "GDNGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"

def GDNGPU_DistributedLayout : AttrInterface<"DistributedLayoutAttr"> {
  let cppNamespace = "::mlir::gdn_gpu";
  let description = [{
    A layout that spreads a tile over the registers of a block's threads.
    `getElementCoords(shape, thread)` lists, in register order, the
    coordinates of the elements the thread holds; an element may be held by
    several threads (broadcast), and every element by at least one.
  }];
  let methods = [
    InterfaceMethod<"threads of the block the layout spreads over",
      "unsigned", "getNumThreads", (ins)>,
    InterfaceMethod<"rank of the tiles the layout applies to",
      "unsigned", "getRank", (ins)>,
    InterfaceMethod<"element coordinates held by `thread`, in register order",
      "::llvm::SmallVector<::llvm::SmallVector<int64_t>>", "getElementCoords",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "unsigned":$thread)>,
  ];
}

class GDNGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<GDNGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def GDNGPU_BlockedAttr : GDNGPU_Attr<"Blocked", "blocked",
    [DeclareAttrInterfaceMethods<GDNGPU_DistributedLayout>]> {
  let summary = "each thread holds a small block; threads, then warps, tile the rest";
  let description = [{
    Triton's blocked layout. Along dimension `d`, a thread holds
    `sizePerThread[d]` consecutive elements, `threadsPerWarp[d]` lanes and
    `warpsPerCTA[d]` warps tile the next levels; a tile larger than that is
    covered by repeating the pattern (more registers per thread), a smaller
    one by wrapping (threads hold the same element). `order` lists the
    dimensions fastest first: lanes and registers run along `order[0]`.
    Loads and stores use it (with `order = [1, 0]` a warp reads whole rows),
    and so does elementwise work that no matmul anchors.

    ```mlir
    #blocked = #gdn_gpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8],
                                warpsPerCTA = [4, 1], order = [1, 0]>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
}

def GDNGPU_WarpgroupMmaAttr : GDNGPU_Attr<"WarpgroupMma", "wgmma",
    [DeclareAttrInterfaceMethods<GDNGPU_DistributedLayout>]> {
  let summary = "the accumulator of Hopper's warpgroup MMA (Triton's MMA v3)";
  let description = [{
    The fp32 accumulator of `wgmma.mma_async.m64nNk16`. Each warp of a
    warpgroup owns 16 rows of the 64-row instruction tile; within a warp,
    lane `l` holds, for every 8-column group `j`, the pairs
    `(l / 4, 8 j + 2 (l % 4) + {0, 1})` and the same columns 8 rows lower.
    Register `i` of an instruction tile is row `16 w + l / 4 + 8 ((i / 2) % 2)`,
    column `8 (i / 4) + 2 (l % 4) + i % 2`. `warpsPerCTA = [wm, wn]` stacks
    warps along M (16 rows each) and N (`instrN` columns each); larger tiles
    repeat the pattern, M first.

    Row vectors of an accumulator (gamma, beta, exp(gamma)) are
    `#gdn_gpu.slice<dim = 1, parent = #wgmma>`: the 2 (per repetition) rows a
    thread touches, so a row scaling is one multiply per register.

    ```mlir
    #mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        "unsigned":$instrN);
  let assemblyFormat = [{
    `<` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,` `instrN` `=` $instrN `>`
  }];
  let genVerifyDecl = 1;
}

def GDNGPU_SliceAttr : GDNGPU_Attr<"Slice", "slice",
    [DeclareAttrInterfaceMethods<GDNGPU_DistributedLayout>]> {
  let summary = "a vector along one dimension of a 2-D layout";
  let description = [{
    Dimension `dim` of the parent is removed: a thread holds element `x` of
    the vector when it holds some element of the parent whose other
    coordinate is `x`. `dim = 1` gives a per-row vector that multiplies a row
    of the parent in place; `dim = 0` a per-column vector. Broadcasting a
    slice back to its parent moves no data.

    ```mlir
    #rows = #gdn_gpu.slice<dim = 1, parent = #gdn_gpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "DistributedLayoutAttr":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def GDNGPU_NVMMASharedAttr : GDNGPU_Attr<"NVMMAShared", "nvmma_shared"> {
  let summary = "a tile in shared memory as the tensor cores and TMA read it";
  let description = [{
    Rows of `swizzleBytes` bytes (128: 64 bf16 / f16 or 32 f32 elements),
    8-row groups of `8 x swizzleBytes` bytes, the 16-byte units of row `r`
    XOR-ed with `r % 8`: the 128-byte swizzle of `wgmma` descriptors (mode 1)
    and of `cp.async.bulk.tensor`. A wider tile is a sequence of such
    column slabs. Operands are staged K-major (each staged row holds K
    elements of one row of A or one column of B) unless `transposed`: the
    tile's own rows run along K (A used as `A^T` with `transpose_a`, or B
    used as is, `K x N`). A transposed 16-bit operand whose rows fill whole
    128-byte rows is staged MN-major, as it is held (K staged rows of M or
    N elements), and wgmma reads it with its transpose bit; in tf32, which
    has none, staging transposes it into a K-major buffer element by
    element.

    ```mlir
    #smem = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>
    ```
  }];
  let parameters = (ins "unsigned":$swizzleBytes, "bool":$transposed);
  let assemblyFormat = [{
    `<` `swizzleBytes` `=` $swizzleBytes `,` `transposed` `=` $transposed `>`
  }];
  let genVerifyDecl = 1;
}

def GDNGPU_DotOperandAttr : GDNGPU_Attr<"DotOperand", "dot_operand"> {
  let summary = "operand A (0) or B (1) of a warpgroup MMA";
  let description = [{
    The layout of a `gdn.matmul` operand when the result has a
    `#gdn_gpu.wgmma` layout: the tile is staged in shared memory in the
    `shared` layout and read there by the tensor cores through matrix
    descriptors. (`wgmma` can take A from registers too; MLIR 22's
    `nvvm.wgmma.mma_async` cannot, so both operands come from shared memory.)

    ```mlir
    #a = #gdn_gpu.dot_operand<opIdx = 0, parent = #mma,
                              shared = #gdn_gpu.nvmma_shared<swizzleBytes = 128, transposed = false>>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "WarpgroupMmaAttr":$parent,
                        "NVMMASharedAttr":$shared);
  let assemblyFormat = [{
    `<` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,` `shared` `=` $shared `>`
  }];
  let genVerifyDecl = 1;
}

#endif // GDN_GPU_LAYOUTS_TD
