//===- RowOpToNVVM.cpp - per-row work on register tiles -------------------===//
//
// A row scaling multiplies each register by its row's factor, which the
// thread already holds: the vector is in the row slice of the tile's layout.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
struct ScaleRowsOnRegisters : OpConversionPattern<gdn::ScaleRowsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::ScaleRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    auto layout = getDistributedLayout(type);
    auto scaleLayout =
        dyn_cast_or_null<SliceAttr>(op.getScale().getType().getEncoding());
    if (!layout || !scaleLayout || scaleLayout.getDim() != 1 ||
        scaleLayout.getParent() != layout)
      return rewriter.notifyMatchFailure(
          op, "the scale vector must be in the row slice of the tile's layout");
    Location loc = op.getLoc();
    SmallVector<Value> out;
    for (auto [reg, row] : llvm::enumerate(sliceRegisterOf(type, 1))) {
      Value v = vector::ExtractOp::create(rewriter, loc, adaptor.getInput(), reg);
      Value s = vector::ExtractOp::create(rewriter, loc, adaptor.getScale(), row);
      out.push_back(arith::MulFOp::create(rewriter, loc, v, s));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(type), out);
    return success();
  }
};
} // namespace

void gdn_gpu::populateRowOpToNVVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<ScaleRowsOnRegisters>(converter, patterns.getContext());
}
