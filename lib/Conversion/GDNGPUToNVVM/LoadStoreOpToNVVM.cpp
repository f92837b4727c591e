//===- LoadStoreOpToNVVM.cpp - tiles in and out of global memory ----------===//
//
// Each thread loads and stores the elements its layout gives it (a blocked
// layout with order [1, 0] makes a warp's accesses row segments). Rows past
// a ragged tail's count read as zero and are not written: a load reads
// row 0 instead (a chunk has at least one row) and selects zero, a store
// is guarded.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
/// The memref indices of tile element `coord`: the corner plus the tile's
/// coordinates along `dims`.
SmallVector<Value> indicesOf(OpBuilder &b, Location loc, ValueRange corner,
                             ArrayRef<int64_t> dims, ArrayRef<Value> coord) {
  SmallVector<Value> idx(corner.begin(), corner.end());
  for (auto [d, c] : llvm::zip(dims, coord))
    idx[d] = arith::AddIOp::create(b, loc, idx[d], c);
  return idx;
}

struct TileLoadOnRegisters : OpConversionPattern<gdn::TileLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::TileLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    if (!getDistributedLayout(type))
      return failure();
    Location loc = op.getLoc();
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<Value> out;
    for (SmallVector<Value> coord : emitThreadCoords(rewriter, loc, type)) {
      Value keep;
      if (Value rows = adaptor.getRows()) {
        keep = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                     coord[0], rows);
        coord[0] = arith::SelectOp::create(rewriter, loc, keep, coord[0], c0);
      }
      Value v = memref::LoadOp::create(
          rewriter, loc, adaptor.getSource(),
          indicesOf(rewriter, loc, adaptor.getIndices(), op.getDims(), coord));
      out.push_back(keep ? arith::SelectOp::create(rewriter, loc, keep, v, zero)
                         : v);
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(type), out);
    return success();
  }
};

struct TileStoreOnRegisters : OpConversionPattern<gdn::TileStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::TileStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getValue().getType());
    if (!getDistributedLayout(type))
      return failure();
    Location loc = op.getLoc();
    for (auto [reg, coord] :
         llvm::enumerate(emitThreadCoords(rewriter, loc, type))) {
      Value v = vector::ExtractOp::create(rewriter, loc, adaptor.getValue(), reg);
      SmallVector<Value> idx =
          indicesOf(rewriter, loc, adaptor.getIndices(), op.getDims(), coord);
      if (Value rows = adaptor.getRows()) {
        Value keep = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                           coord[0], rows);
        auto guard = scf::IfOp::create(rewriter, loc, keep, /*withElse=*/false);
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(guard.thenBlock());
        memref::StoreOp::create(rewriter, loc, v, adaptor.getDest(), idx);
      } else {
        memref::StoreOp::create(rewriter, loc, v, adaptor.getDest(), idx);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void gdn_gpu::populateLoadStoreOpToNVVMPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<TileLoadOnRegisters, TileStoreOnRegisters>(converter,
                                                          patterns.getContext());
}
