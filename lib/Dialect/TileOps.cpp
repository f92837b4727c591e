//===- TileOps.cpp - verifiers of tile loads and stores -------------------===//

#include "gdn/Dialect/GDNDialect.h"

#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::gdn;

// Shared rules of gdn.tile_load / tile_store / tile_prefetch: one index per memref
// dimension, one memref dimension per tile dimension (distinct, in range),
// and equal element types. A tile may reach past a static memref dimension:
// those elements are padding (zero when loaded, not stored).
static LogicalResult verifyTileAccess(Operation *op, MemRefType memref,
                                      RankedTensorType tile,
                                      size_t numIndices,
                                      ArrayRef<int64_t> dims) {
  int64_t rank = memref.getRank();
  if (static_cast<int64_t>(numIndices) != rank)
    return op->emitOpError() << "expects " << rank << " indices for a rank-"
                             << rank << " memref, got " << numIndices;
  if (static_cast<int64_t>(dims.size()) != tile.getRank())
    return op->emitOpError() << "'dims' has " << dims.size()
                             << " entries but the tile has rank "
                             << tile.getRank();
  llvm::SmallSet<int64_t, 4> seen;
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= rank)
      return op->emitOpError() << "dims[" << i << "] = " << d
                               << " is not a dimension of the rank-" << rank
                               << " memref";
    if (!seen.insert(d).second)
      return op->emitOpError() << "dims names memref dimension " << d
                               << " twice";
  }
  if (tile.getElementType() != memref.getElementType())
    return op->emitOpError() << "tile element type " << tile.getElementType()
                             << " differs from memref element type "
                             << memref.getElementType();
  return success();
}

LogicalResult TileLoadOp::verify() {
  return verifyTileAccess(*this, getSource().getType(), getResult().getType(),
                          getIndices().size(), getDims());
}

LogicalResult TileStoreOp::verify() {
  return verifyTileAccess(*this, getDest().getType(), getValue().getType(),
                          getIndices().size(), getDims());
}

LogicalResult TilePrefetchOp::verify() {
  MemRefType memref = getSource().getType();
  if (getShape().empty() || getShape().size() > 2)
    return emitOpError() << "prefetches a rank-1 or rank-2 tile, got 'shape' "
                            "of rank "
                         << getShape().size();
  if (memref.getMemorySpace())
    return emitOpError() << "prefetches global memory: the source must be in "
                            "the default memory space, got "
                         << memref.getMemorySpace();
  if (!memref.getElementType().isIntOrFloat())
    return emitOpError() << "needs integer or float elements, got "
                         << memref.getElementType();
  if (getShape().size() != getDims().size())
    return emitOpError() << "'shape' has " << getShape().size()
                         << " entries but 'dims' has " << getDims().size();
  if (llvm::any_of(getShape(), [](int64_t n) { return n <= 0; }))
    return emitOpError() << "'shape' must be positive";
  return verifyTileAccess(
      *this, memref,
      RankedTensorType::get(getShape(), memref.getElementType()),
      getIndices().size(), getDims());
}
