//===- TileLowering.h - shared pieces of the register-tile lowering -*- C++ -*-===//
//
// Private to lib/Conversion/GDNGPUToNVVM. A tile with a distributed layout
// becomes, in each thread, a vector of the elements that thread holds (in
// the layout's register order); a tile staged for the tensor cores becomes
// its shared-memory buffer. Each op family's patterns live in a file of
// their own and are added by a populate function declared here.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_CONVERSION_GDNGPUTONVVM_TILELOWERING_H
#define GDN_CONVERSION_GDNGPUTONVVM_TILELOWERING_H

#include "gdn/Dialect/GPU/GDNGPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/SetVector.h"

#include <optional>

namespace mlir {
class IRMapping;
} // namespace mlir
namespace mlir::gpu {
class GPUFuncOp;
} // namespace mlir::gpu
namespace mlir::gdn {
class TileLoadOp;
} // namespace mlir::gdn
namespace mlir::scf {
class ForOp;
} // namespace mlir::scf

namespace mlir::gdn_gpu {

/// How operands are staged for warpgroup MMA: bf16 or f16 (k16
/// instructions), or fp32 read as tf32 (k8 instructions).
enum class MmaPrecision { bf16, f16, tf32 };

/// The `mma-precision` option of the passes that stage operands: "bf16",
/// "f16", "tf32", or "auto": f16 when a kernel under `where` takes an f16
/// memref (fp16 inputs), else bf16. Otherwise an error on `where`, naming
/// `pass` and the bad text.
FailureOr<MmaPrecision> parseMmaPrecision(StringRef text, StringRef pass,
                                          Operation *where);

/// Bytes of one staged operand element under `precision`.
inline int64_t stagedElementBytes(MmaPrecision precision) {
  return precision == MmaPrecision::tf32 ? 4 : 2;
}

/// Dynamic shared memory of one kernel: the scratch area of layout moves
/// at offset 0 (bracketed by barriers), then the TMA load rings (live for
/// the whole kernel), then the staged tensor-core operands. Each staged operand lives from its staging to the end of its
/// last use (a use inside a loop keeps it to the end of that loop); buffers
/// whose lives do not overlap share bytes. Offsets are planned before the
/// conversion, from the layout IR.
class SharedMemoryPlan {
public:
  /// The most dynamic shared memory a block may use (sm_90: 227 KiB).
  static constexpr int64_t kMaxSharedBytes = 227 * 1024;

  /// Plans `kernel`'s shared memory; operands staged as `stagedBytes`-byte
  /// elements.
  SharedMemoryPlan(Operation *kernel, int64_t stagedBytes);
  int64_t scratchOffset() const { return 0; }
  /// Where ring `ring` (a gdn_gpu.load_ring) starts: its slots, then its
  /// barriers (8 bytes a slot) at barrierOffset.
  int64_t ringOffset(int64_t ring) const { return rings.lookup(ring).first; }
  int64_t barrierOffset(int64_t ring) const { return rings.lookup(ring).second; }
  int64_t slotBytes(int64_t ring) const { return slotSizes.lookup(ring); }
  int64_t scratchBytes() const { return scratch; }
  /// The buffer of a staging conversion (a convert_layout to a dot operand).
  int64_t offsetOf(Operation *staging) const { return offsets.lookup(staging); }
  /// The earlier staging of the same block whose buffer already holds this
  /// one's bytes (the same tile staged for another matmul, or as the other
  /// operand), or null: such a staging stores nothing.
  Operation *stagedBefore(Operation *staging) const {
    return sharedWith.lookup(staging);
  }
  int64_t totalBytes() const { return total; }

private:
  int64_t scratch = 0;
  int64_t total = 0;
  llvm::DenseMap<Operation *, int64_t> offsets;
  llvm::DenseMap<Operation *, Operation *> sharedWith;
  llvm::DenseMap<int64_t, std::pair<int64_t, int64_t>> rings;
  llvm::DenseMap<int64_t, int64_t> slotSizes;
};

class TileTypeConverter : public TypeConverter {
public:
  TileTypeConverter(MLIRContext *ctx, MmaPrecision precision);
  MmaPrecision precision;
  /// The element type operands are staged in shared memory as.
  Type stagedElementType(MLIRContext *ctx) const;
};

/// Registers a thread holds of `type` (a tile with a distributed layout).
int64_t registersPerThread(RankedTensorType type);

/// The thread's index in the block (an index), read afresh at this point.
/// LLVM takes `%tid.x` for an invariant and would hoist every per-register
/// address computed from it out of the chunk loop, hundreds of 64-bit
/// values the loop then keeps live (or spills); a read with side effects
/// keeps each op's address arithmetic next to the op.
Value threadIdHere(OpBuilder &b, Location loc);

/// `value` (an i64), passed through an opaque move at this point. For
/// uniform values such as wgmma descriptor bases: LLVM would hoist every
/// descriptor of every matmul out of the chunk loop, and ptxas then keeps
/// (or spills) them in per-thread registers across the whole loop.
Value opaqueHere(OpBuilder &b, Location loc, Value value);

/// The calling thread's coordinates of each register of `type`: per
/// register, one index value per dimension.
SmallVector<SmallVector<Value>> emitThreadCoords(OpBuilder &b, Location loc,
                                                 RankedTensorType type);

/// The longest run length (a power of two, at most `maxLength`) such that
/// every thread's registers of `type` come in runs of that many elements
/// consecutive along `dim`, each starting at a multiple of the length on
/// every thread: one vector access per run. 1 when the layout has none.
int64_t vectorRunLength(RankedTensorType type, unsigned dim, int64_t maxLength);

/// Registers [first, first + length) of `regs` as one vector.
Value registerRun(OpBuilder &b, Location loc, Value regs, int64_t first,
                  int64_t length);

/// For each register of a rank-2 tile in `parent`, the register of the
/// same row (`dim` = 1) or column (`dim` = 0) in its slice layout.
SmallVector<int64_t> sliceRegisterOf(RankedTensorType parent, unsigned dim);

/// A shared-memory buffer of `elements` of `elementType`: a view of the
/// kernel's dynamic shared memory at `offset` (a SharedMemoryPlan offset).
Value sharedView(OpBuilder &b, Location loc, int64_t offset, int64_t elements,
                 Type elementType);

/// The shared-window address of a shared-memory buffer, as i64 (for wgmma
/// descriptors and stmatrix pointers).
Value sharedAddress(OpBuilder &b, Location loc, Value buffer);

/// Whether a tile of `type` staged as `operand` with `elementBytes`-byte
/// elements is laid out MN-major: a transposed operand (its rows run along
/// K) of 16-bit elements whose other dimension fills whole 128-byte rows.
/// It is then stored as it is held (K rows of M or N elements), and the
/// matmul reads it with wgmma's transpose bit; tf32 has none, so such
/// operands are transposed on the way into a K-major buffer instead.
bool isStagedMNMajor(RankedTensorType type, DotOperandAttr operand,
                     int64_t elementBytes);

/// Whether staging a tile of `type` as `operand` transposes it on the way
/// (a transposed operand that is not staged MN-major). Stagings of one tile
/// that agree on this write the same bytes, whichever operand they feed:
/// K-major and MN-major buffers both hold the tile's rows as they are.
bool stagedTransposed(RankedTensorType type, DotOperandAttr operand,
                      int64_t elementBytes);

/// Element index, in a K-major 128-byte-swizzled staged operand with `rows`
/// rows, of (row, k). An MN-major operand uses the same layout with the
/// roles swapped: (k, mn) in a buffer of K rows.
Value swizzledIndex(OpBuilder &b, Location loc, Value row, Value k, int64_t rows,
                    int64_t elementBytes);

/// The tile `regs` (of `type`, distributed) written row-major to the
/// scratch area, between barriers: on return every thread may read any
/// element of the returned view.
Value writeToScratch(OpBuilder &b, Location loc, SharedMemoryPlan &plan,
                     Value regs, RankedTensorType type);

/// Row-major element index of `coord` in a tile of `shape`.
Value rowMajorIndex(OpBuilder &b, Location loc, ArrayRef<Value> coord,
                    ArrayRef<int64_t> shape);

/// All threads of the block meet; with `asyncProxy`, shared-memory writes are
/// first made visible to the tensor cores.
void emitBlockBarrier(OpBuilder &b, Location loc, bool asyncProxy = false);

void populateElementwiseOpToNVVMPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns);
/// The ops of `loop`'s body that `load`'s corner and row count are computed
/// from, when they are pure and read the induction variable (and no other
/// value the loop carries): a clone of them with the induction variable
/// replaced gives another iteration's tile (no ops at all when the corner
/// is the induction variable itself). None otherwise: a tile the same in
/// every iteration, or one whose address the loop carries.
std::optional<llvm::SetVector<Operation *>>
nextAddressSlice(gdn::TileLoadOp load, scf::ForOp loop);

/// Clones `ops` (ops of `loop`'s body, such as the union of address
/// slices) at `b`'s insertion point in body order, each once, so that the
/// clones dominate each other; `mapping` maps the induction variable to the
/// iteration wanted and collects the clones.
void cloneInBodyOrder(OpBuilder &b, scf::ForOp loop,
                      const llvm::SetVector<Operation *> &ops,
                      IRMapping &mapping);

/// Whether iteration `iv` of `loop` runs: `iv` below the upper bound, under
/// the loop's signedness.
Value emitIterationExists(OpBuilder &b, Location loc, scf::ForOp loop, Value iv);

/// The kernel's TMA load rings (gdn_gpu.load_ring): bytes of each, in
/// shared memory after the scratch area, before the staged operands.
int64_t ringBytes(int64_t stages, int64_t slotBytes);

void populateLoadStoreOpToNVVMPatterns(TileTypeConverter &converter,
                                       RewritePatternSet &patterns);

/// How gdn.tile_prefetch numbers a tile's cache lines: row by row, each row
/// a run of 128-byte lines when its columns are the memref's contiguous
/// dimension, else a line per element.
struct PrefetchLines {
  int64_t elementBytes = 0;
  int64_t columnsPerLine = 0;
  int64_t linesPerRow = 0;
  int64_t lines = 0;
};
PrefetchLines prefetchLines(MemRefType memref, ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> dims);

/// The threads of `kernel`'s block when its `known_block_size` is
/// one-dimensional (what gdn.tile_prefetch spreads its lines over).
std::optional<int64_t> flatBlockThreads(gpu::GPUFuncOp kernel);

/// gdn.tile_prefetch: `prefetch.L2` of the tile's lines over the block.
void populateTilePrefetchToNVVMPatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns);
/// Also tensor.extract of one element of a tile (through the scratch area).
void populateConvertLayoutOpToNVVMPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           SharedMemoryPlan &plan);
void populateRowOpToNVVMPatterns(TileTypeConverter &converter,
                                 RewritePatternSet &patterns);
void populateGateOpToNVVMPatterns(TileTypeConverter &converter,
                                  RewritePatternSet &patterns,
                                  SharedMemoryPlan &plan);
/// Scratch bytes the lowering of a gdn.tri_inverse of `type` uses.
int64_t triInverseScratchBytes(RankedTensorType type);
void populateTriInverseOpToNVVMPatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        SharedMemoryPlan &plan);
/// The TMA load ring's ops (gdn-gpu-pipeline-loads) at `plan`'s offsets.
void populateRingOpsToNVVMPatterns(TileTypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   SharedMemoryPlan &plan);
void populateMatmulOpToWGMMAPatterns(TileTypeConverter &converter,
                                     RewritePatternSet &patterns,
                                     SharedMemoryPlan &plan);

} // namespace mlir::gdn_gpu

#endif // GDN_CONVERSION_GDNGPUTONVVM_TILELOWERING_H
