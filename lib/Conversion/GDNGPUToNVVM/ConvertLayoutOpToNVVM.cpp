//===- ConvertLayoutOpToNVVM.cpp - moving tiles between layouts -----------===//
//
// Two moves, both through shared memory:
// - between distributed layouts: every thread writes its registers to the
//   scratch area (row-major), the block meets, every thread reads the
//   elements its new layout gives it;
// - into a tensor-core operand: every thread writes its registers, in the
//   staged element type, to the operand's own 128-byte-swizzled buffer,
//   then the writes are fenced for the async proxy and the block meets.
//   The buffer is K-major, or MN-major for a transposed 16-bit operand
//   (isStagedMNMajor): then the tile is stored as it is held, a vector per
//   run of registers, where a K-major buffer would need it transposed one
//   element at a time (tf32, which wgmma cannot read transposed).
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
/// `v` (a scalar or a vector of floats) converted to `type`.
Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (getElementTypeOrSelf(type).getIntOrFloatBitWidth() <
      getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth())
    return arith::TruncFOp::create(b, loc, type, v);
  return arith::ExtFOp::create(b, loc, type, v);
}

struct ConvertLayoutThroughShared : OpConversionPattern<ConvertLayoutOp> {
  ConvertLayoutThroughShared(TileTypeConverter &converter, MLIRContext *ctx,
                             SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx), plan(plan) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = op.getSource().getType();
    auto dst = op.getType();
    if (!getDistributedLayout(src))
      return rewriter.notifyMatchFailure(op, "source has no distributed layout");
    if (auto operand = dyn_cast_or_null<DotOperandAttr>(dst.getEncoding()))
      return stageOperand(op, operand, adaptor.getSource(), rewriter);
    if (getDistributedLayout(dst))
      return redistribute(op, adaptor.getSource(), rewriter);
    return rewriter.notifyMatchFailure(op, "unsupported layout pair");
  }

  LogicalResult redistribute(ConvertLayoutOp op, Value regs,
                             ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto src = op.getSource().getType();
    auto dst = op.getType();
    Type elt = src.getElementType();
    int64_t bytes = src.getNumElements() * elt.getIntOrFloatBitWidth() / 8;
    if (bytes > plan.scratchBytes())
      return rewriter.notifyMatchFailure(op, "scratch area too small");
    Value scratch = writeToScratch(rewriter, loc, plan, regs, src);
    // Registers consecutive along the last dimension: one vector load.
    int64_t eltBits = elt.getIntOrFloatBitWidth();
    int64_t eltBytes = std::max<int64_t>(1, eltBits / 8);
    int64_t run =
        eltBits % 8 ? 1 : vectorRunLength(dst, dst.getRank() - 1, 16 / eltBytes);
    auto coords = emitThreadCoords(rewriter, loc, dst);
    SmallVector<Value> out;
    for (size_t reg = 0; reg < coords.size(); reg += run) {
      Value index = rowMajorIndex(rewriter, loc, coords[reg], dst.getShape());
      if (run == 1) {
        out.push_back(memref::LoadOp::create(rewriter, loc, scratch, index));
        continue;
      }
      Value vec = vector::LoadOp::create(
          rewriter, loc, VectorType::get({run}, elt), scratch, index,
          /*nontemporal=*/false, llvm::MaybeAlign(run * eltBytes));
      for (int64_t j = 0; j < run; ++j)
        out.push_back(vector::ExtractOp::create(rewriter, loc, vec, j));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(dst), out);
    return success();
  }

  LogicalResult stageOperand(ConvertLayoutOp op, DotOperandAttr operand,
                             Value regs,
                             ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto src = op.getSource().getType();
    auto bufferType = cast<MemRefType>(getTypeConverter()->convertType(op.getType()));
    Type staged = bufferType.getElementType();
    int64_t elementBytes = staged.getIntOrFloatBitWidth() / 8;
    // K-major: staged rows are rows of A / columns of B, K elements each,
    // so a transposed tile is transposed on the way. MN-major: the tile's
    // own rows (K of them) are stored as they are. Either way the buffer's
    // rows are the tile's rows unless `transposeOnTheWay`.
    bool transposeOnTheWay = operand.getShared().getTransposed() &&
                             !isStagedMNMajor(src, operand, elementBytes);
    int64_t rows = src.getDimSize(transposeOnTheWay ? 1 : 0);
    int64_t k = src.getDimSize(transposeOnTheWay ? 0 : 1);
    if (elementBytes == 0 || operand.getShared().getSwizzleBytes() != 128 ||
        (k * elementBytes) % 128 != 0)
      return rewriter.notifyMatchFailure(
          op, "staged operands are 128-byte swizzled with whole 128-byte rows");
    Value buffer = sharedView(rewriter, loc, plan.offsetOf(op), src.getNumElements(),
                              staged);
    // The buffer's bytes may still be read by an earlier operand's matmul.
    emitBlockBarrier(rewriter, loc);
    // Registers consecutive along a buffer row (K, or M / N when MN-major)
    // land in one 16-byte unit of the swizzle (runs are aligned to their
    // length): one vector store each.
    int64_t run =
        vectorRunLength(src, transposeOnTheWay ? 0 : 1, 16 / elementBytes);
    auto coords = emitThreadCoords(rewriter, loc, src);
    for (size_t reg = 0; reg < coords.size(); reg += run) {
      Value row = transposeOnTheWay ? coords[reg][1] : coords[reg][0];
      Value kk = transposeOnTheWay ? coords[reg][0] : coords[reg][1];
      Value index = swizzledIndex(rewriter, loc, row, kk, rows, elementBytes);
      if (run == 1) {
        Value v = castTo(rewriter, loc,
                         vector::ExtractOp::create(rewriter, loc, regs, reg), staged);
        memref::StoreOp::create(rewriter, loc, v, buffer, index);
        continue;
      }
      Value v = castTo(rewriter, loc, registerRun(rewriter, loc, regs, reg, run),
                       VectorType::get({run}, staged));
      vector::StoreOp::create(rewriter, loc, v, buffer, index,
                              /*nontemporal=*/false,
                              llvm::MaybeAlign(run * elementBytes));
    }
    emitBlockBarrier(rewriter, loc, /*asyncProxy=*/true);
    rewriter.replaceOp(op, buffer);
    return success();
  }

  SharedMemoryPlan &plan;
};

/// One element of a tile, for every thread: through the scratch area.
struct ExtractThroughShared : OpConversionPattern<tensor::ExtractOp> {
  ExtractThroughShared(TileTypeConverter &converter, MLIRContext *ctx,
                       SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx), plan(plan) {}

  LogicalResult
  matchAndRewrite(tensor::ExtractOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getTensor().getType());
    if (!getDistributedLayout(type))
      return failure();
    Location loc = op.getLoc();
    Value scratch = writeToScratch(rewriter, loc, plan, adaptor.getTensor(), type);
    SmallVector<Value> idx(adaptor.getIndices().begin(), adaptor.getIndices().end());
    rewriter.replaceOpWithNewOp<memref::LoadOp>(
        op, scratch, rowMajorIndex(rewriter, loc, idx, type.getShape()));
    return success();
  }

  SharedMemoryPlan &plan;
};
} // namespace

void gdn_gpu::populateConvertLayoutOpToNVVMPatterns(TileTypeConverter &converter,
                                                    RewritePatternSet &patterns,
                                                    SharedMemoryPlan &plan) {
  patterns.add<ConvertLayoutThroughShared, ExtractThroughShared>(
      converter, patterns.getContext(), plan);
}
