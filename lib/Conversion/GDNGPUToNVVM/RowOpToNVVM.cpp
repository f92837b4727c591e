//===- RowOpToNVVM.cpp - per-row work on register tiles -------------------===//
//
// A row scaling multiplies each register by its row's factor, which the
// thread already holds: the vector is in the row slice of the tile's layout.
// A row's l2 norm is a sum over the thread's registers of that row, then a
// butterfly of warp shuffles over the lanes that share the row (no shared
// memory, no barrier).
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Dialect/ScalarFormulas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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
/// Lane masks that reach every lane holding a part of the same rows, or
/// nothing when the row spans warps.
std::optional<SmallVector<int32_t>> rowLaneMasks(Attribute layout) {
  if (auto mma = dyn_cast<WarpgroupMmaAttr>(layout)) {
    if (mma.getWarpsPerCTA()[1] != 1)
      return std::nullopt; // warpgroups hold different columns of a row
    return SmallVector<int32_t>{1, 2}; // a quad holds a row's columns
  }
  auto blocked = dyn_cast<BlockedAttr>(layout);
  if (!blocked || blocked.getRank() != 2 || blocked.getOrder()[0] != 1 ||
      blocked.getWarpsPerCTA()[1] != 1)
    return std::nullopt;
  SmallVector<int32_t> masks;
  for (int32_t m = 1; m < int32_t(blocked.getThreadsPerWarp()[1]); m *= 2)
    masks.push_back(m);
  return masks;
}

struct L2NormOnRegisters : OpConversionPattern<gdn::L2NormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::L2NormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    auto layout = getDistributedLayout(type);
    if (!layout)
      return failure();
    auto masks = rowLaneMasks(layout);
    if (!masks)
      return rewriter.notifyMatchFailure(
          op, "rows must lie within a warp (blocked, order [1, 0], one warp "
              "along the row; or wgmma)");
    Location loc = op.getLoc();
    // Registers of the same row: thread 0's row offset identifies the row.
    SmallVector<int64_t> group;
    SmallVector<int64_t> rowOffsets;
    for (const auto &c : layout.getElementCoords(type.getShape(), 0)) {
      auto it = llvm::find(rowOffsets, c[0]);
      group.push_back(it - rowOffsets.begin());
      if (it == rowOffsets.end())
        rowOffsets.push_back(c[0]);
    }
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    SmallVector<Value> sums(rowOffsets.size(), zero), regs;
    for (auto [reg, g] : llvm::enumerate(group)) {
      Value v = vector::ExtractOp::create(rewriter, loc, adaptor.getInput(), reg);
      regs.push_back(v);
      sums[g] = arith::AddFOp::create(rewriter, loc, sums[g],
                                      arith::MulFOp::create(rewriter, loc, v, v));
    }
    Value width = arith::ConstantIntOp::create(rewriter, loc, kWarpSize, 32);
    for (Value &sum : sums) {
      for (int32_t mask : *masks) {
        Value offset = arith::ConstantIntOp::create(rewriter, loc, mask, 32);
        Value other = gpu::ShuffleOp::create(rewriter, loc, sum, offset, width,
                                             gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        sum = arith::AddFOp::create(rewriter, loc, sum, other);
      }
      sum = gdn::emitInverseNorm(rewriter, loc, sum, op.getEps().convertToDouble());
    }
    SmallVector<Value> out;
    for (auto [reg, g] : llvm::enumerate(group))
      out.push_back(arith::MulFOp::create(rewriter, loc, regs[reg], sums[g]));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(type), out);
    return success();
  }
};
} // namespace

void gdn_gpu::populateRowOpToNVVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<ScaleRowsOnRegisters, L2NormOnRegisters>(converter,
                                                        patterns.getContext());
}
