//===- ConvertLayoutOp.cpp - gdn_gpu.convert_layout -----------------------===//

#include "gdn/Dialect/GPU/GDNGPUDialect.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

LogicalResult ConvertLayoutOp::verify() {
  auto result = getResult().getType();
  Attribute enc = result.getEncoding();
  if (!enc || enc.getDialect().getNamespace() != "gdn_gpu")
    return emitOpError() << "result needs a gdn_gpu layout, got " << result;
  if (auto layout = dyn_cast<DistributedLayoutAttr>(enc);
      layout && layout.getRank() != result.getRank())
    return emitOpError() << "layout " << enc << " is for rank "
                         << layout.getRank() << " tiles, the result has rank "
                         << result.getRank();
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  // A tile already in the layout needs no move.
  if (getSource().getType() == getType())
    return getSource();
  // Only the last move of a chain matters.
  if (auto inner = getSource().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getSource().getType() == getType())
      return inner.getSource();
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  return {};
}
