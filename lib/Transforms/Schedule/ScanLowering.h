//===- ScanLowering.h - building a schedule's kernels -----------*- C++ -*-===//
//
// What a schedule kind uses to turn one entry's gdn.chunk_scan into kernels.
// Each kernel is a copy of the entry (its prologue computes the program's
// chunk range as before) whose scan is replaced by what the kind builds with
// a KernelBody: stages inlined where they are needed, loops, and loads and
// stores of *workspaces*, global buffers that carry values between kernels.
//
// A workspace holds one tile (or one f32) per slot of each program: it is a
// memref [grid x, grid y, slots, tile dims...], slots being chunks or
// segments of the program's sequence. A workspace *per head* is indexed by
// value head instead of program ([HV, grid y, slots, ...]): the programs
// of a V-split head share it (`staged prepare-per=head`). Every kernel of an entry takes every
// workspace of the entry as trailing arguments (marked `gdn.workspace`);
// the driver allocates them, poisoned, from the launch plan the kernels'
// attributes describe (`gdn.entry`, `gdn.step`, `gdn.grid_z`).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TRANSFORMS_SCHEDULE_SCANLOWERING_H
#define GDN_TRANSFORMS_SCHEDULE_SCANLOWERING_H

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Schedule/Schedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
class IRMapping;
} // namespace mlir

namespace mlir::gdn::schedule {

/// What grid axis 2 of a kernel walks: nothing (size 1), the chunk slots
/// of a program, or its segments of `segment-chunks` chunks.
enum class GridZ { One, Chunks, Segments };
const char *gridZName(GridZ z);

class ScanLowering;

/// Builds one kernel's replacement of the scan, at the scan's place.
class KernelBody {
public:
  KernelBody(OpBuilder &b, ChunkScanOp scan, func::FuncOp kernel,
             ScanLowering &lowering, bool perHead);

  OpBuilder &builder() { return b; }
  Location loc() { return scan.getLoc(); }
  Value lower() { return scan.getLower(); }
  Value upper() { return scan.getUpper(); }
  Value init() { return scan.getInit(); }
  Value programId(int axis);
  Value index(int64_t value);
  Value f32(double value);

  /// The scan's stages, inlined at the insertion point.
  SmallVector<Value> prepare(Value chunk);
  /// Returns the next state, then the step values.
  SmallVector<Value> step(Value chunk, ValueRange prepared, Value state);
  void emit(Value chunk, ValueRange prepared, Value state,
            ValueRange stepValues);
  /// (a, B, R) of the chunk, or with a folding transition `mapSoFar`
  /// composed with the chunk's; fails (with a diagnostic) without one.
  FailureOr<SmallVector<Value>> transition(Value chunk, ValueRange prepared,
                                           ValueRange mapSoFar);
  /// What the entry does with the scan's result (its epilogue: the final
  /// state's store), done here with `state`: for a kernel that knows the
  /// final state only in some of its blocks, under a condition. The kernel
  /// body then returns a null value.
  LogicalResult storeFinal(Value state);

  /// The value head this program works on: where a workspace per head is
  /// indexed (gdn.program_rows' head; program_id 0 in a kernel per head).
  Value head();

  /// This program's slot `slot` of workspace `ws`.
  void store(unsigned ws, Value slot, Value value);
  Value load(unsigned ws, Value slot);
  /// Chunk c's prepared values, those with a workspace in `stored` loaded
  /// from its slot `slot`, the others prepared here (the stage is inlined
  /// and what fed only the loaded values is dead and removed).
  SmallVector<Value> preparedWithLoads(Value c,
                                       ArrayRef<std::optional<unsigned>> stored,
                                       Value slot);
  /// Chunk c's prepared values with the prepare stage's own values
  /// `stored` (ScanLowering::sharedSolveValues) loaded, each from its
  /// workspace's slot `slot`, in place of making them: what fed only them
  /// is dead and removed.
  SmallVector<Value>
  preparedWithInnerLoads(Value c, ArrayRef<std::pair<OpResult, unsigned>> stored,
                         Value slot);
  /// Chunk c's prepare stage, inlined, and the values `wanted` (the prepare
  /// stage's own values, in the entry's scan) as this kernel made them.
  SmallVector<Value> prepareAndGet(Value c, ArrayRef<OpResult> wanted);
  /// In a kernel parallel over chunks (grid z = chunk slots): `fn(c, slot)`
  /// for chunk c = lower + program_id(2), when c < upper.
  void forThisChunk(function_ref<void(Value c, Value slot)> fn);
  /// The same in two steps: the slot as stored (`intermediates`), then
  /// widened to the workspace's tile type. A loop that prefetches carries
  /// the narrow value.
  Value loadStored(unsigned ws, Value slot);
  /// Where this program's slot `slot` of workspace `ws` starts: (program or
  /// head, sequence, slot), or (program or head, 0, the scan's slot base +
  /// slot) for a workspace over the call's chunks.
  SmallVector<Value> workspaceIndex(unsigned ws, Value slot);
  Value widen(unsigned ws, Value stored);

  /// `for iv = lb to ub` carrying `iters`; `body` returns the next iters.
  SmallVector<Value>
  forLoop(Value lb, Value ub, ValueRange iters,
          function_ref<SmallVector<Value>(Value iv, ValueRange iters)> body);
  void ifThen(Value condition, function_ref<void()> body);

  /// Tile arithmetic for combining states.
  Value matmul(Value lhs, Value rhs);
  Value scale(Value tile, Value scalar);
  Value add(Value lhs, Value rhs);
  Value zeros(Type tileType);

private:
  SmallVector<Value> inlineStage(Region &stage, ValueRange args,
                                 IRMapping *mapping = nullptr);
  /// This kernel's copy of `value`, a result of an op of the entry's
  /// scan's prepare stage, under `mapping` (an inlining of that stage).
  Value innerValue(OpResult value, IRMapping &mapping);
  /// `value` (a float tile) with the element type of `to`: extf, truncf,
  /// or both between two 16-bit types.
  Value castElements(Value value, Type to);
  OpBuilder &b;
  ChunkScanOp scan;
  func::FuncOp kernel;
  ScanLowering &lowering;
  bool perHead;
};

class ScanLowering {
public:
  ScanLowering(func::FuncOp entry, ChunkScanOp scan,
               const ScheduleOptions &options);

  const ScheduleOptions &options() const { return opts; }
  /// The entry's scan (for types; kernels work on their own copies).
  ChunkScanOp scan() { return original; }
  /// Element type of intermediates in global memory (`intermediates=`).
  Type intermediateType();
  /// How a prepared or step value of type `t` is stored between kernels:
  /// tiles as `intermediates=`; vectors (the cumulative log decay) in f32
  /// whatever the tiles' storage: they are tiny, and the step and the
  /// output take exponentials of their differences.
  Type storageOf(Type t);
  /// For each value the scan's prepare stage yields: whether `store=`
  /// sends it between kernels. `all`: every one; `solve`: those that
  /// depend on a gdn.tri_inverse (the WY solve); `products`: those that
  /// depend on the solve or on a gdn.matmul; through the stage's ops and
  /// the functions it calls.
  SmallVector<bool> preparedToStore();
  /// The prepare stage's own values (results of the ops of its block, in
  /// the entry's scan) that a kernel per value head can make once for all
  /// the head's V-blocks and the later kernels load: those `store=` sends
  /// (solve or products) that do not depend on the program's V rows
  /// (gdn.program_rows' first row), where the stage yields them or an op
  /// that reads the V rows takes them (W and the inverse Tm in
  /// gdn_chunked.mlir; with `products` Q K^T too). Fails with a diagnostic
  /// without gdn.program_rows or without such values.
  FailureOr<SmallVector<OpResult>> sharedValues();
  /// For each value the scan's prepare stage yields: whether preparing the
  /// values marked in `wanted` computes it too (it feeds them, or comes
  /// from an op that yields one), through the stage's ops and the
  /// functions it calls.
  SmallVector<bool> preparedAlongside(ArrayRef<bool> wanted);

  /// Declares a workspace for tiles of type `tile` (or an f32 scalar)
  /// stored as `storage` elements. Declare all before adding kernels.
  unsigned addWorkspace(Type tile, Type storage, GridZ slots,
                        bool perHead = false);

  /// Marks the kernels added from now on as giving a program's chunk past
  /// a multiple of the segment length to segment 0
  /// (`gdn.extra_chunk_in_segment_zero`): the launch then counts segments
  /// without it (planCall).
  void setExtraChunkInSegmentZero() { extraChunkInSegmentZero = true; }
  /// Marks the kernels added from now on as having a segment 0 of
  /// `chunks` chunks (`gdn.first_segment_chunks`), the others
  /// `segment-chunks` long (planCall counts segments accordingly).
  void setFirstSegmentChunks(int64_t chunks) { firstSegmentChunks = chunks; }

  /// Adds kernel `<entry>__<suffix>` (or `<entry>` when `suffix` is empty),
  /// launched after the ones added before. `body` replaces the scan and
  /// returns the final state, or a null value when this kernel does not
  /// produce it (then whatever used the scan's result is dropped here).
  /// With `perHead`, the kernel's grid x is the value heads (gdn.grid_x):
  /// gdn.program_rows gives each program its head and row 0.
  LogicalResult addKernel(StringRef suffix, GridZ z,
                          function_ref<FailureOr<Value>(KernelBody &)> body,
                          bool perHead = false);

  /// Removes the original entry once its kernels exist.
  void finish() { entry.erase(); }

private:
  friend class KernelBody;
  /// The prepare stage's values (its block's and, through calls, the
  /// yielded ones) that `store=solve|products` sends between kernels.
  DenseSet<Value> storedPreparedValues();
  struct Workspace {
    Type tile;
    Type storage;
    GridZ slots;
    bool perHead;
    /// Chunk slots numbered over the call (a workspace per head, and the
    /// scan has `slots from`): the runtime's `call-chunks` axis, grid y of
    /// extent 1.
    bool callSlots;
    Type memref;
    /// The slot axis's name in the kernels' gdn.workspace attribute.
    StringRef axisName() const {
      return callSlots ? "call-chunks" : gridZName(slots);
    }
  };
  func::FuncOp entry;
  ChunkScanOp original;
  ScheduleOptions opts;
  SmallVector<Workspace> workspaces;
  unsigned firstWorkspaceArg;
  int64_t nextStep = 0;
  bool extraChunkInSegmentZero = false;
  int64_t firstSegmentChunks = 0;
  Operation *insertAfter;
};

} // namespace mlir::gdn::schedule

#endif
