//===- Passes.td - passes of the gdn compiler -------------*- tablegen -*-===//

#ifndef GDN_PASSES_TD
#define GDN_PASSES_TD

include "mlir/Pass/PassBase.td"

def GDNSchedule : Pass<"gdn-schedule", "::mlir::ModuleOp"> {
  let summary = "turn each kernel's gdn.chunk_scan into the kernels of a schedule";
  let description = [{
    The first pass of both pipelines. A schedule decides which stages of a
    `gdn.chunk_scan` share a kernel, where the values between kernels live
    and how a sequence is split over blocks; the kernel program does not
    change. Built-in schedules:

    - `fused`: one kernel per program; the scan becomes a loop and the state
      stays on chip.
    - `staged` (`staged-bf16`): `<entry>__prepare` (grid z = chunk slots)
      stores every chunk's prepared values, `<entry>__state` (serial) steps
      the state and stores each chunk's entering state and step values,
      `<entry>__output` (grid z = chunk slots) writes the outputs;
      intermediates in fp32 (bf16).
    - `split-seq`: `<entry>__transition` (grid z = segments) composes each
      segment's `(a, B, R)`, `<entry>__combine` (serial) derives every
      segment's entering state and the final state, `<entry>__replay`
      (grid z = segments) reruns each segment from its state for outputs and
      checkpoints.

    `schedule` also takes the path of a schedule file: a kind (`fused`,
    `staged`, `split-seq`) and `key=value` knobs (`intermediates=f32|bf16`,
    `output=separate|with-state`, `segment-chunks=N`); see
    docs/Schedules.md. Every kernel records its place in the launch plan
    (`gdn.entry`, `gdn.step`, `gdn.grid_z`), and the buffers between kernels
    are trailing `memref<grid x, grid y, slots, tile...>` arguments marked
    `gdn.workspace`. Functions without a scan are left alone.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "a built-in schedule (fused, staged, staged-bf16, split-seq) or "
           "a schedule file; empty: gdn-opt's --schedule, else fused">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"];
}

def GDNSpecializeEntries
    : Pass<"gdn-specialize-entries", "::mlir::ModuleOp"> {
  let summary = "copies of an entry with its flag arguments bound to constants";
  let description = [{
    An entry function whose `gdn.specialize` attribute lists flag sets (an
    array of dictionaries, flag name -> integer) gets one copy per set,
    named `<entry>_s<i>`, in which each argument marked `{gdn.flag =
    "name"}` is replaced by that constant: the branches on it fold away
    when the copy is canonicalised, and the copy keeps the entry's
    signature, so it is launched with the same arguments. Runtime switches
    cost registers and spills in the kernels that carry them (the paged
    entry's gate domain, beta logit and l2norm flags). Each copy records
    `gdn.specialized_from` (the entry) and `gdn.bound_args` (argument
    index, value pairs); the launch plans carry them and a call whose flag
    arguments match a copy's runs the copy (`pickEntry`), any other call
    the entry itself. Flags are `index` or `i1` arguments (what launchers
    compare). A flag set that names an unknown flag, binds a non-integer
    or an i1 to anything but 0 / 1, or a copy name that exists already, is
    an error at the entry. The `gdn.flag` marks are
    dropped afterwards.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def GDNProgramIdsToArgs : Pass<"gdn-program-ids-to-args", "::mlir::ModuleOp"> {
  let summary = "turn gdn.program_id into trailing index arguments of the kernel";
  let description = [{
    For execution on the CPU: every `func.func` that uses `gdn.program_id`
    gets three trailing `index` arguments (grid axes 0, 1, 2) and each
    `gdn.program_id N` is replaced by argument N. The driver then calls the
    kernel once per point of the launch grid, as Triton's CPU backend does.
    Functions without program ids are left alone.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def GDNFoldMatmulAccumulate
    : Pass<"gdn-fold-matmul-accumulate", "::mlir::ModuleOp"> {
  let summary = "fold arith.addf(c, gdn.matmul) into gdn.matmul ... acc(c)";
  let description = [{
    `arith.addf %c, %p` (either order) where `%p` is a `gdn.matmul` with
    `mask none`, no `acc` and no other use becomes one `gdn.matmul` with
    `acc(%c)`: where the product was when `%c` is defined by then, else
    right after `%c` (past other matmuls if need be). On the GPU's register
    tiles the product then accumulates into `%c`'s registers, so the sum
    holds one tile, not two (the state update `exp(gamma_last) M + Vn^T Kd`
    holds the 128 x 128 state once). Runs after inlining in the register-tile GPU pipeline and
    in the CPU pipeline (which lowers `acc` back to an add, so the CPU
    matrix checks what the tiles back end runs); the first GPU code
    generator's pipeline leaves the adds as written.
  }];
}

def ConvertGDNToLinalg : Pass<"convert-gdn-to-linalg", "::mlir::ModuleOp"> {
  let summary = "lower gdn tile ops to linalg, tensor, arith, math, memref and scf";
  let description = [{
    The CPU path's first conversion. Tile compute ops become `linalg` ops on
    tensors (matmuls, reductions, elementwise `linalg.generic`s); the
    triangular inverse and the cumulative sum become `scf.for` loops over
    tensor slices; tile loads and stores become `scf.for` loops of
    `memref.load` / `memref.store` guarded by the row count, bridged to tensors
    with `bufferization.to_tensor` / `to_buffer`. The result bufferizes with
    `one-shot-bufferize`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"];
}

def GDNGPUOutline : Pass<"gdn-gpu-outline", "::mlir::ModuleOp"> {
  let summary = "move bufferized gdn kernels into a gpu.module as kernels";
  let description = [{
    Runs after bufferization. Every public function becomes a `gpu.func`
    kernel in `gpu.module @gdn_kernels` with one more argument, a byte
    buffer of per-block scratch memory: each `memref.alloc` (a tile's
    buffer) becomes a `memref.view` at a fixed offset in its block's slice
    of that buffer, so tiles of any total size fit (the scratch stays in L1 /
    L2). `gdn.program_id N` becomes `gpu.block_id` along axis N. The bytes a
    block needs are recorded as `gdn.scratch_bytes_per_block` on the kernel;
    the launcher allocates grid size times that. With `shared-memory=N`,
    buffers that are only read and written in place (smallest first) go to
    dynamic shared memory instead, up to N bytes, recorded as
    `gdn.shared_bytes_per_block`. A schedule's `gdn.no_prefetch` mark
    (`prefetch=none`) is carried over to the kernel. Host functions are
    removed.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"128",
           "threads per block (a multiple of 32)">,
    Option<"sharedMemoryBudget", "shared-memory", "int64_t", /*default=*/"0",
           "bytes of dynamic shared memory per block for tile buffers "
           "(smallest buffers used only in place go first; 0: none)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def GDNGPUAssignLayouts : Pass<"gdn-gpu-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "give every tile a gdn_gpu layout, anchored on the matmuls";
  let description = [{
    The first pass of the register-tile GPU back end (docs/GPUBackend.md). It
    runs on the scheduled, inlined tile program and gives every tile value
    (a statically shaped rank-1 or rank-2 float tensor) a layout encoding:

    - by default `#gdn_gpu.blocked`: rank-2 tiles `sizePerThread = [1, 4]`,
      `threadsPerWarp = [4, 8]`, warps stacked along rows (a warp reads four
      128-byte row segments); rank-1 tiles one element per lane;
    - each `gdn.matmul` result `#gdn_gpu.wgmma` (warps along M,
      `instrN` = the result's columns, at most 256), its operands
      `#gdn_gpu.dot_operand` staged in 128-byte-swizzled shared memory, its
      decay vector the row slice of the accumulator. Conversions connect the
      anchors to their producers and users.

    `gdn-gpu-remove-layout-conversions` then moves the anchors' layouts
    forward and removes what is not needed.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned",
           /*default=*/"::mlir::gdn::GPUCodegenOptions().numWarps()",
           "warps per block (a multiple of 4: warpgroup MMA needs whole warpgroups)">
  ];
  let dependentDialects = ["::mlir::gdn_gpu::GDNGPUDialect"];
}

def GDNGPURemoveLayoutConversions
    : Pass<"gdn-gpu-remove-layout-conversions", "::mlir::ModuleOp"> {
  let summary = "propagate the matmuls' layouts and remove needless conversions";
  let description = [{
    Rewrites, to a fixed point:

    - a conversion to the layout a tile already has, or of a conversion,
      folds away;
    - an elementwise op (`arith`, `math`, `gdn.mask_rows`, `gdn.sigmoid`)
      with an operand converted out of an accumulator layout (`wgmma` or a
      slice of it) runs in that layout instead: its other operands are
      converted in, splats and constants made there directly, and one
      conversion follows its result;
    - `gdn.scale_rows` of a tile converted out of an accumulator scales the
      accumulator in place, its scale vector in the row slice;
    - a loop-carried tile whose next value comes out of a conversion is
      carried in the converted-from layout (the state stays in the
      accumulator across chunks);
    - `tensor.extract` reads through a conversion;
    - `gdn.state_store` / `gdn.tile_store` of a tile converted out of a
      `wgmma` accumulator store the accumulator: each thread writes its own
      registers, with no trip through shared memory.

    Layouts only move towards the accumulators, so the rewriting ends.
  }];
  let dependentDialects = ["::mlir::gdn_gpu::GDNGPUDialect",
                           "::mlir::scf::SCFDialect"];
}

def GDNGPUStageOperandsEarly : Pass<"gdn-gpu-stage-operands-early", "::mlir::ModuleOp"> {
  let summary = "stage tensor-core operands as soon as they are computed";
  let description = [{
    In every `gpu.func`, moves each staging (a `gdn_gpu.convert_layout` into
    a dot-operand layout, which lowers to a write into shared memory) up to
    just after its source is computed, together with the pure ops of its
    block whose results feed nothing else (row scalings, masks, the matmul
    whose result is staged). The tile then holds shared memory instead of
    registers across the ops in between: the kernel file computes `K`,
    `Q` and `Q K^T` in the prepare stage and stages them for the step and
    emit matmuls, with the state and `U` in registers meanwhile.

    A move is kept only while the kernel's shared-memory plan (as
    `gdn-gpu-lower-tiles` computes it for `mma-precision`) stays within
    `shared-budget` bytes, or within what it needed before.

    Global stores (`gdn.tile_store`, `gdn.state_store`) move up the same
    way, with the conversions that only feed them, to just after their
    value, but never above an op that writes memory or reads the memref the
    store writes. A value stored and otherwise unused (split-seq's
    transition storing prepared values for `replay=load`) then frees its
    registers at once.
  }];
  let options = [
    Option<"mmaPrecision", "mma-precision", "std::string",
           /*default=*/"::mlir::gdn::kDefaultMma",
           "tensor-core operand precision: auto (f16 when the kernels read f16 tensors, else bf16), bf16 or f16 (2-byte staged elements), or tf32 (4)">,
    Option<"sharedBudget", "shared-budget", "int64_t", /*default=*/"232448",
           "bytes of shared memory a block may use (H100 / H200: 227 KiB)">
  ];
  let dependentDialects = ["::mlir::gdn_gpu::GDNGPUDialect"];
}

def GDNGPUPrefetchNextChunk : Pass<"gdn-gpu-prefetch-next-chunk", "::mlir::ModuleOp"> {
  let summary = "ask for the next chunk's tiles in L2 while the current chunk computes";
  let description = [{
    In every `gpu.func` kernel, each `gdn.tile_load` of a kernel argument
    directly in an `scf.for` body, whose corner and row count are pure
    functions of the induction variable (and of values defined above the
    loop), gets a `gdn.tile_prefetch` of the same tile one iteration ahead:
    the address ops are cloned with the induction variable stepped, at the
    top of the body, under `scf.if` (one more iteration follows). Left
    alone: loads whose address does not change, or depends on a value the
    loop carries or on an op with effects; loads the loop carries to its
    next iteration (already a chunk ahead: split-seq's replay loads chunk
    c + 1's workspace tiles during chunk c); tiles of more cache lines than
    the block has threads (at K = V = 128 on two warpgroups, split-seq's
    combine maps, loaded a step at a time with little work to hide a
    prefetch behind; a rank-2 tile whose rows are not runs of the memref's
    contiguous dimension is a line per element); kernels without a known
    one-dimensional `known_block_size`.

    A chunk loop then has its next chunk's `q`, `k`, `v` and gates (and, in
    staged's state kernel on two warpgroups, the workspace tiles) on their
    way to L2 during the current chunk's work, for at most one
    `prefetch.L2` a thread and tile: a line per 128 bytes of a row, or per
    element of a vector (the gates along tokens). `gdn-run --prefetch
    none` (pipeline option `prefetch=false` of `gdn-gpu-tiles-to-ptx`)
    leaves the pass out; a schedule with `prefetch=none` marks its kernels
    `gdn.no_prefetch` (carried over by `gdn-gpu-outline`), which the pass
    leaves alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def GDNGPUPipelineLoads : Pass<"gdn-gpu-pipeline-loads", "::mlir::ModuleOp"> {
  let summary = "load a chunk loop's token tiles by TMA through a ring of shared-memory slots";
  let description = [{
    In every `gpu.func` kernel marked `gdn.load_stages = S` (the schedule's
    `stages=S`, S >= 2), each `gdn.tile_load` of a kernel argument directly
    in an `scf.for` body whose address follows the induction variable (as
    `gdn-gpu-prefetch-next-chunk` finds them) and that TMA can box (a
    rank-2, 16-bit tile along the memref's contiguous dimension, with 16
    bytes dividing its row length, an identity layout and at most five
    dimensions) is read from an S-slot ring instead:

    - the kernel gets a tensor-map parameter per such argument (after its
      scratch buffer; `gdn.tensor_maps` on the kernel says which argument
      and box each describes, for the runtime to encode) and a
      `gdn_gpu.load_ring` at its entry;
    - before the loop, thread 0 fills slots 0 .. S-1 with the tiles of
      iterations 0 .. S-1 (`gdn_gpu.ring_expect`, then a `gdn_gpu.tma_load`
      per 64-column box), each where the iteration exists;
    - at the top of iteration i, every thread waits for slot i % S
      (`gdn_gpu.ring_wait`, parity (i / S) % 2) and reads its tiles
      (`gdn_gpu.ring_read`, ragged rows as zero); the block meets, and
      thread 0 fills the slot with iteration i + S's tiles.

    Loads stay as they are where the ring would not fit in shared memory
    beside what the kernel already plans there (227 KiB in all): the pass
    takes as many slots as fit, down to none, and says so in a remark.
  }];
  let options = [
    Option<"mmaPrecision", "mma-precision", "std::string",
           /*default=*/"::mlir::gdn::kDefaultMma",
           "tensor-core operand precision, as gdn-gpu-lower-tiles takes it (it sizes the staged operands the ring must fit beside)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect", "::mlir::gdn_gpu::GDNGPUDialect"];
}

def GDNGPUMarkTensorMaps : Pass<"gdn-gpu-mark-tensor-maps", "::mlir::ModuleOp"> {
  let summary = "pass a kernel's tensor maps by value, as grid constants";
  let description = [{
    After the GPU-to-NVVM conversion (which drops argument attributes), the
    last N parameters of each `llvm.func` kernel with N entries in
    `gdn.tensor_maps` get `llvm.byval = !llvm.array<128 x i8>`, `llvm.align
    = 64` and `nvvm.grid_constant`: PTX passes each CUtensorMap in the
    parameter space (`.param .align 64 .b8 p[128]`), and TMA reads it there
    through its generic address.
  }];
}

def GDNGPULowerTiles : Pass<"gdn-gpu-lower-tiles", "::mlir::ModuleOp"> {
  let summary = "lower tiles with layouts to per-thread registers, shared memory and wgmma";
  let description = [{
    In every `gpu.func`, each tile with a `gdn_gpu` layout becomes the vector
    of the elements the calling thread holds (register order of the layout),
    and each tile staged for the tensor cores its shared-memory buffer. One
    file per op family (lib/Conversion/GDNGPUToNVVM):

    - elementwise `arith` / `math` ops, splats, splat constants and
      `gdn.mask_rows`: the same op per register;
    - `gdn.tile_load` / `gdn.tile_store`: per-register global accesses, rows
      past the row count read as zero and are not written;
    - `gdn_gpu.convert_layout`: through shared memory; into a tensor-core
      operand it writes the K-major 128-byte-swizzled layout (transposing
      when the operand is used transposed) and fences it for the async proxy;
    - `gdn.scale_rows`: one multiply per register, the factor from the row
      slice; `gdn.l2norm`: a per-thread sum, then xor shuffles over the lanes
      that share a row;
    - `gdn.gate`, `gdn.sigmoid`: per-register formulas shared with the CPU
      path; `gdn.cumsum`, `tensor.extract` of a tile element and
      `gdn.tri_inverse` through the scratch area (the inverse solves one
      column per thread, with no barrier inside its loops);
    - `gdn.state_load` / `gdn.state_store` and `gdn.page_lookup`: plain
      loads and stores;
    - `gdn.matmul` with a `wgmma` result: `wgmma.mma_async` chains over K
      from shared-memory descriptors (bf16 k16 or tf32 k8), the mask and the
      decay applied to the accumulator registers.

    The kernel's dynamic shared memory (the scratch area of layout moves,
    then the staged operands, which share bytes when their lives do not
    overlap) is recorded as `gdn.shared_bytes_per_block`; a kernel that
    needs more than an sm_90 block may have (227 KiB) is an error at its
    location, naming the bytes and the cure (a smaller `v-block`). Scalar, `memref`
    and `scf` code is left for `convert-gpu-to-nvvm`. The kernels run on as
    many threads as the layouts name: one or two warpgroups (128 or 256
    threads); with two, each warpgroup computes its share of every
    matmul's columns.
  }];
  let options = [
    Option<"mmaPrecision", "mma-precision", "std::string",
           /*default=*/"::mlir::gdn::kDefaultMma",
           "tensor-core operand precision: auto (f16 when the kernels read f16 tensors, else bf16), bf16 or f16 (k16), or tf32 (fp32 operands, k8)">
  ];
  let dependentDialects = ["::mlir::gdn_gpu::GDNGPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def GDNGPUElideBarriers : Pass<"gdn-gpu-elide-barriers", "::mlir::ModuleOp"> {
  let summary = "drop block barriers that order nothing";
  let description = [{
    Runs after `gdn-gpu-lower-tiles`. Each op lowering brackets its shared
    memory trip with barriers (`nvvm.barrier0`): a staging waits before it
    writes (earlier matmuls may still read those bytes) and after (its
    matmul reads what every thread wrote). Two stagings in a row thus meet
    at two barriers with nothing between them, and a barrier between two
    runs of shared-memory writes orders nothing: live buffers never share
    bytes, so no thread writes what another one wrote or must read.

    Within each block of a `gpu.func`, a barrier is removed when the ops
    since the previous barrier and the ops up to the next one (both in the
    same block) only write shared memory or touch none. Reads of shared
    memory, every `wgmma` op, ops with regions and ops of unknown effect
    keep the barriers around them, except an `scf.if` none of whose ops
    touches shared memory (row-guarded global stores, L2 prefetches);
    global memory accesses, `nvvm.prefetch` and the lowering's own `mov`
    inline assembly do not count, and a proxy fence
    counts as a write (the barrier after it publishes the writes to
    `wgmma`). The first barrier of a block is always kept, and so is the
    last unless it directly follows another one.

    Then a proxy fence is removed when another one follows it with only
    shared-memory writes (or ops touching no shared memory) between them:
    the later fence publishes every earlier write of its thread to the
    async proxy. Each fence is a `MEMBAR` in SASS, which waits for the
    thread's outstanding global loads.

    Precondition (true of the tile back end's kernels): threads of a block
    never pass data to each other through global memory.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

def GDNGPUDumpPTX : Pass<"gdn-gpu-dump-ptx", "::mlir::ModuleOp"> {
  let summary = "write the PTX of the module's gpu.binary as plain text";
  let description = [{
    Runs after `gdn-gpu-pipeline` (or `gdn-gpu-tiles-to-ptx`), whose last
    pass leaves the PTX as an escaped string in a `gpu.binary`. This writes
    that PTX, unescaped, to `file` (`-`: standard output), as `gdn-run
    --emit ptx` prints it; the module is unchanged. A module without a
    `gpu.binary`, or with more than one object, is refused with a message
    naming what to run first.

    ```
    gdn-opt kernels/gdn_chunked.mlir --gdn-gpu-pipeline=schedule=fused \
      --gdn-gpu-dump-ptx=file=kernel.ptx -o /dev/null
    ```
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"-\"",
           "where the PTX goes (`-`: standard output)">
  ];
}

#endif // GDN_PASSES_TD
