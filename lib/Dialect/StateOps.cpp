//===- StateOps.cpp - verifiers of paged state loads and stores -----------===//

#include "gdn/Dialect/GDNDialect.h"

using namespace mlir;
using namespace mlir::gdn;

// A state tile is one head's [V, K] fp32 matrix, V and K in {64, 128}, and
// must match the pool's last two dimensions where those are static. With a
// row index, the tile is a block of V rows: its V divides the pool's.
static LogicalResult verifyStateTile(Operation *op, MemRefType pool,
                                     RankedTensorType tile, bool rowBlock) {
  for (int i = 0; i < 2; ++i) {
    int64_t size = tile.getDimSize(i);
    if (size != 64 && size != 128)
      return op->emitOpError() << "state tile dimension " << i << " ("
                               << (i == 0 ? "V" : "K") << ") is " << size
                               << ", expected 64 or 128";
    int64_t extent = pool.getDimSize(2 + i);
    if (i == 0 && rowBlock) {
      if (!ShapedType::isDynamic(extent) && extent % size != 0)
        return op->emitOpError()
               << "state row block of " << size
               << " rows does not divide the pool's V (" << extent << ")";
      continue;
    }
    if (!ShapedType::isDynamic(extent) && extent != size)
      return op->emitOpError() << "state tile " << tile
                               << " does not match pool dimension " << 2 + i
                               << " (" << extent << ")";
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
