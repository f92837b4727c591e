//===- StateOps.cpp - verifiers of paged state loads and stores -----------===//

#include "gdn/Dialect/GDNDialect.h"

using namespace mlir;
using namespace mlir::gdn;

// A state tile is one head's [V, K] fp32 matrix, each dimension a multiple
// of 64 (the MMA tile the kernels pad head sizes to). It covers the pool's
// last two dimensions where those are static: dimensions past them are
// padding (read as zero, not written). With a row index, the tile is a block
// of V rows and any block size goes; rows past the pool's V are padding.
static LogicalResult verifyStateTile(Operation *op, MemRefType pool,
                                     RankedTensorType tile, bool rowBlock) {
  for (int i = 0; i < 2; ++i) {
    int64_t size = tile.getDimSize(i);
    const char *name = i == 0 ? "V" : "K";
    if (size <= 0 || size % 64 != 0)
      return op->emitOpError() << "state tile dimension " << i << " (" << name
                               << ") is " << size
                               << ", expected a positive multiple of 64";
    int64_t extent = pool.getDimSize(2 + i);
    if (i == 0 && rowBlock)
      continue;
    if (!ShapedType::isDynamic(extent) && size < extent)
      return op->emitOpError()
             << "state tile " << tile << " does not cover pool dimension "
             << 2 + i << " (" << name << " = " << extent << ")";
  }
  return success();
}

LogicalResult StateLoadOp::verify() {
  return verifyStateTile(*this, getPool().getType(), getResult().getType(),
                         static_cast<bool>(getRow()));
}

LogicalResult StateStoreOp::verify() {
  return verifyStateTile(*this, getPool().getType(), getValue().getType(),
                         static_cast<bool>(getRow()));
}
