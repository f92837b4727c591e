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
#include "gdn/Dialect/ScalarFormulas.h"

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

/// The registers of a tile of `type` read from `source` at `corner` along
/// `dims`; rows at or past `rows` (when given) are zero.
Value loadRegisters(OpBuilder &b, Location loc, const TypeConverter &converter,
                    RankedTensorType type, Value source, ValueRange corner,
                    ArrayRef<int64_t> dims, Value rows) {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> out;
  for (SmallVector<Value> coord : emitThreadCoords(b, loc, type)) {
    Value keep;
    if (rows) {
      keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, coord[0], rows);
      coord[0] = arith::SelectOp::create(b, loc, keep, coord[0], c0);
    }
    Value v = memref::LoadOp::create(b, loc, source,
                                     indicesOf(b, loc, corner, dims, coord));
    out.push_back(keep ? arith::SelectOp::create(b, loc, keep, v, zero) : v);
  }
  return vector::FromElementsOp::create(b, loc, converter.convertType(type), out);
}

/// The registers `regs` of a tile of `type` written to `dest`; rows at or
/// past `rows` (when given) are not written.
void storeRegisters(OpBuilder &b, Location loc, RankedTensorType type, Value regs,
                    Value dest, ValueRange corner, ArrayRef<int64_t> dims,
                    Value rows) {
  for (auto [reg, coord] : llvm::enumerate(emitThreadCoords(b, loc, type))) {
    Value v = vector::ExtractOp::create(b, loc, regs, reg);
    SmallVector<Value> idx = indicesOf(b, loc, corner, dims, coord);
    if (!rows) {
      memref::StoreOp::create(b, loc, v, dest, idx);
      continue;
    }
    Value keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, coord[0], rows);
    auto guard = scf::IfOp::create(b, loc, keep, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(guard.thenBlock());
    memref::StoreOp::create(b, loc, v, dest, idx);
  }
}

/// pool[page, head, row, 0]: the corner of a state tile (row 0, or the first
/// row of a V-split's block) and the dimensions it walks.
SmallVector<Value> stateCorner(OpBuilder &b, Location loc, Value page, Value head,
                               Value row) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  return {page, head, row ? row : c0, c0};
}
constexpr int64_t kStateDims[] = {2, 3};

struct TileLoadOnRegisters : OpConversionPattern<gdn::TileLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::TileLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getDistributedLayout(op.getType()))
      return failure();
    rewriter.replaceOp(op, loadRegisters(rewriter, op.getLoc(), *getTypeConverter(),
                                         op.getType(), adaptor.getSource(),
                                         adaptor.getIndices(), op.getDims(),
                                         adaptor.getRows()));
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
    storeRegisters(rewriter, op.getLoc(), type, adaptor.getValue(), adaptor.getDest(),
                   adaptor.getIndices(), op.getDims(), adaptor.getRows());
    rewriter.eraseOp(op);
    return success();
  }
};

struct StateLoadOnRegisters : OpConversionPattern<gdn::StateLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::StateLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getDistributedLayout(op.getType()))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOp(
        op, loadRegisters(rewriter, loc, *getTypeConverter(), op.getType(),
                          adaptor.getPool(),
                          stateCorner(rewriter, loc, adaptor.getPage(), adaptor.getHead(),
                                      adaptor.getRow()),
                          kStateDims, Value()));
    return success();
  }
};

struct StateStoreOnRegisters : OpConversionPattern<gdn::StateStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::StateStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getValue().getType());
    if (!getDistributedLayout(type))
      return failure();
    Location loc = op.getLoc();
    storeRegisters(rewriter, loc, type, adaptor.getValue(), adaptor.getPool(),
                   stateCorner(rewriter, loc, adaptor.getPage(), adaptor.getHead(),
                                      adaptor.getRow()),
                   kStateDims, Value());
    rewriter.eraseOp(op);
    return success();
  }
};
/// The page-table walk: scalar loads, the same on every thread.
struct PageLookupToLoads : OpConversionPattern<gdn::PageLookupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::PageLookupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, gdn::emitPageLookup(rewriter, op.getLoc(),
                                               adaptor.getPageIndices(),
                                               adaptor.getPageIndptr(),
                                               adaptor.getSeq(), adaptor.getPage()));
    return success();
  }
};
} // namespace

void gdn_gpu::populateLoadStoreOpToNVVMPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<TileLoadOnRegisters, TileStoreOnRegisters, StateLoadOnRegisters,
               StateStoreOnRegisters, PageLookupToLoads>(converter,
                                                         patterns.getContext());
}
