//===- TriInverseOpToNVVM.cpp - (I + A)^-1 without a barrier chain --------===//
//
// Column j of Tm = (I + A)^-1 depends on column j alone: it solves
// (I + A) x = e_j by forward substitution. So thread j computes column j on
// its own, reading A (broadcast reads) and its column of Tm from the
// scratch area: two barriers in all, not one per row. (Thread j does about
// (L - j)^2 / 2 multiply-adds; inverting 16 x 16 diagonal blocks and
// merging them with small matmuls would balance that better.)
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
struct TriInverseThroughShared : OpConversionPattern<gdn::TriInverseOp> {
  TriInverseThroughShared(TileTypeConverter &converter, MLIRContext *ctx,
                          SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx), plan(plan) {}

  LogicalResult
  matchAndRewrite(gdn::TriInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    if (!getDistributedLayout(type))
      return failure();
    int64_t l = type.getDimSize(0);
    if (l > getDistributedLayout(type).getNumThreads())
      return rewriter.notifyMatchFailure(op, "one thread per column is needed");
    Location loc = op.getLoc();
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
    Value a = writeToScratch(rewriter, loc, plan, adaptor.getInput(), type);
    Value t = sharedView(rewriter, loc, plan.scratchOffset() + l * l * 4, l * l,
                         rewriter.getF32Type());
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    Value one = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(1));
    Value j = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value mine = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, j, c(l));
    auto owner = scf::IfOp::create(rewriter, loc, mine, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(owner.thenBlock());
      auto at = [&](OpBuilder &b, Location lc, Value row, Value col) -> ValueRange {
        Value index = arith::AddIOp::create(
            b, lc, arith::MulIOp::create(b, lc, row, c(l)), col);
        return index.getDefiningOp()->getResults();
      };
      // Above the diagonal 0, on it 1.
      scf::ForOp::create(rewriter, loc, c(0), j, c(1), ValueRange{},
                         [&](OpBuilder &b, Location lc, Value i, ValueRange) {
                           memref::StoreOp::create(b, lc, zero, t, at(b, lc, i, j));
                           scf::YieldOp::create(b, lc);
                         });
      memref::StoreOp::create(rewriter, loc, one, t, at(rewriter, loc, j, j));
      // Below: T[i][j] = -sum_{k = j}^{i - 1} A[i][k] T[k][j].
      Value first = arith::AddIOp::create(rewriter, loc, j, c(1));
      scf::ForOp::create(
          rewriter, loc, first, c(l), c(1), ValueRange{},
          [&](OpBuilder &b, Location lc, Value i, ValueRange) {
            auto dot = scf::ForOp::create(
                b, lc, j, i, c(1), ValueRange{zero},
                [&](OpBuilder &bb, Location lk, Value k, ValueRange acc) {
                  Value aik = memref::LoadOp::create(bb, lk, a, at(bb, lk, i, k));
                  Value tkj = memref::LoadOp::create(bb, lk, t, at(bb, lk, k, j));
                  Value s = arith::AddFOp::create(
                      bb, lk, acc[0], arith::MulFOp::create(bb, lk, aik, tkj));
                  scf::YieldOp::create(bb, lk, ValueRange{s});
                });
            Value neg = arith::NegFOp::create(b, lc, dot.getResult(0));
            memref::StoreOp::create(b, lc, neg, t, at(b, lc, i, j));
            scf::YieldOp::create(b, lc);
          });
    }
    emitBlockBarrier(rewriter, loc);
    SmallVector<Value> out;
    for (const auto &coord : emitThreadCoords(rewriter, loc, type))
      out.push_back(memref::LoadOp::create(
          rewriter, loc, t, rowMajorIndex(rewriter, loc, coord, type.getShape())));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(type), out);
    return success();
  }

  SharedMemoryPlan &plan;
};
} // namespace

void gdn_gpu::populateTriInverseOpToNVVMPatterns(TileTypeConverter &converter,
                                                 RewritePatternSet &patterns,
                                                 SharedMemoryPlan &plan) {
  patterns.add<TriInverseThroughShared>(converter, patterns.getContext(), plan);
}
