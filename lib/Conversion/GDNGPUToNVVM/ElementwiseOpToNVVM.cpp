//===- ElementwiseOpToNVVM.cpp - per-register arithmetic ------------------===//
//
// An elementwise op on tiles whose operands share a layout is the same op on
// each thread's register vector: no data moves. Splats and splat constants
// are made in any layout for free; a row mask compares each register's row
// with the row count.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
bool hasDistributedTile(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return getDistributedLayout(t); });
}

/// arith / math ops with the Elementwise trait, retyped onto vectors.
struct ElementwiseOnRegisters : ConversionPattern {
  ElementwiseOnRegisters(TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumRegions() != 0 ||
        !hasDistributedTile(op->getResultTypes()))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types,
                         op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

struct SplatOnRegisters : OpConversionPattern<tensor::SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getDistributedLayout(op.getType()))
      return failure();
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type, adaptor.getInput());
    return success();
  }
};

struct SplatConstantOnRegisters : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!getDistributedLayout(op.getType()) || !dense || !dense.isSplat())
      return failure();
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, type, DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
    return success();
  }
};

/// mask_rows: registers of rows at or past the count become zero.
struct MaskRowsOnRegisters : OpConversionPattern<gdn::MaskRowsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::MaskRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    if (!getDistributedLayout(type))
      return failure();
    Location loc = op.getLoc();
    auto coords = emitThreadCoords(rewriter, loc, type);
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
    SmallVector<Value> out;
    for (auto [reg, c] : llvm::enumerate(coords)) {
      Value v = vector::ExtractOp::create(rewriter, loc, adaptor.getValue(), reg);
      Value keep = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                         c[0], adaptor.getRows());
      out.push_back(arith::SelectOp::create(rewriter, loc, keep, v, zero));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(type), out);
    return success();
  }
};
} // namespace

void gdn_gpu::populateElementwiseOpToNVVMPatterns(TileTypeConverter &converter,
                                                  RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseOnRegisters>(converter, ctx);
  patterns.add<SplatOnRegisters, SplatConstantOnRegisters, MaskRowsOnRegisters>(
      converter, ctx);
}
