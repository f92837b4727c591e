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

namespace mlir::gdn_gpu {

/// How operands are staged for warpgroup MMA: bf16 (k16 instructions) or
/// fp32 read as tf32 (k8 instructions).
enum class MmaPrecision { bf16, tf32 };

/// Dynamic shared memory of one kernel. Staged operands get buffers of
/// their own (they live until their matmul), handed out by a bump
/// allocator; layout conversions share one scratch area at offset 0, sized
/// before the conversion starts and bracketed by barriers.
class SharedMemoryPlan {
public:
  explicit SharedMemoryPlan(int64_t scratchBytes);
  /// Offset of a new buffer of `bytes` (1024-byte aligned: the 128-byte
  /// swizzle repeats every 8 rows of 128 bytes, and descriptors assume it
  /// starts on that boundary).
  int64_t allocate(int64_t bytes);
  int64_t scratchOffset() const { return 0; }
  int64_t scratchBytes() const { return scratch; }
  int64_t totalBytes() const { return next; }

private:
  int64_t scratch;
  int64_t next;
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

/// The calling thread's coordinates of each register of `type`: per
/// register, one index value per dimension.
SmallVector<SmallVector<Value>> emitThreadCoords(OpBuilder &b, Location loc,
                                                 RankedTensorType type);

/// For each register of a rank-2 tile in `parent`, the register of the
/// same row (`dim` = 1) or column (`dim` = 0) in its slice layout.
SmallVector<int64_t> sliceRegisterOf(RankedTensorType parent, unsigned dim);

/// A shared-memory buffer of `elements` of `elementType`: a view of the
/// kernel's dynamic shared memory at `offset` (a SharedMemoryPlan offset).
Value sharedView(OpBuilder &b, Location loc, int64_t offset, int64_t elements,
                 Type elementType);

/// Element index, in a K-major 128-byte-swizzled staged operand with `rows`
/// rows, of (row, k).
Value swizzledIndex(OpBuilder &b, Location loc, Value row, Value k, int64_t rows,
                    int64_t elementBytes);

/// All threads of the block meet; with `asyncProxy`, shared-memory writes are
/// first made visible to the tensor cores.
void emitBlockBarrier(OpBuilder &b, Location loc, bool asyncProxy = false);

void populateElementwiseOpToNVVMPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns);
void populateLoadStoreOpToNVVMPatterns(TileTypeConverter &converter,
                                       RewritePatternSet &patterns);
void populateConvertLayoutOpToNVVMPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           SharedMemoryPlan &plan);
void populateRowOpToNVVMPatterns(TileTypeConverter &converter,
                                 RewritePatternSet &patterns);
void populateMatmulOpToWGMMAPatterns(TileTypeConverter &converter,
                                     RewritePatternSet &patterns,
                                     SharedMemoryPlan &plan);

} // namespace mlir::gdn_gpu

#endif // GDN_CONVERSION_GDNGPUTONVVM_TILELOWERING_H
