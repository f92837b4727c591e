//===- RingOps.cpp - the TMA load ring's ops ------------------------------===//

#include "gdn/Dialect/GPU/GDNGPUDialect.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

LogicalResult LoadRingOp::verify() {
  if (getStages() < 1 || getStages() > 8)
    return emitOpError() << "stages = " << getStages()
                         << " (expected 1 to 8 slots)";
  // TMA's 128-byte swizzle repeats every 1024 bytes; slots start on it.
  if (getSlotBytes() <= 0 || getSlotBytes() % 1024 != 0)
    return emitOpError() << "slot_bytes = " << getSlotBytes()
                         << " (expected a positive multiple of 1024)";
  return success();
}

LogicalResult RingReadOp::verify() {
  RankedTensorType type = getResult().getType();
  auto layout = dyn_cast_or_null<DistributedLayoutAttr>(type.getEncoding());
  if (!layout)
    return emitOpError() << "result needs a distributed gdn_gpu layout, got "
                         << type;
  if (type.getRank() != 2 || type.getElementTypeBitWidth() != 16)
    return emitOpError() << "reads rank-2 tiles of 16-bit elements (TMA "
                            "boxes of 64 elements a 128-byte row), got "
                         << type;
  if (getOffset() < 0 || getOffset() % 1024 != 0)
    return emitOpError() << "offset = " << getOffset()
                         << " (expected a multiple of 1024 bytes)";
  return success();
}
