//===- GateOpToNVVM.cpp - gates and the cumulative decay on registers -----===//
//
// Gates and sigmoids are per-register formulas (ScalarFormulas.h, shared
// with the CPU path). The in-chunk cumulative sum goes through the scratch
// area: every thread writes its elements, the block meets, and each
// register sums the prefix it needs (at most 64 adds, no further barrier).
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
/// `fn` applied to every register of `regs`.
Value perRegister(OpBuilder &b, Location loc, Value regs, Type type,
                  function_ref<Value(Value)> fn) {
  auto vec = cast<VectorType>(type);
  SmallVector<Value> out;
  for (int64_t i = 0; i < vec.getNumElements(); ++i)
    out.push_back(fn(vector::ExtractOp::create(b, loc, regs, i)));
  return vector::FromElementsOp::create(b, loc, vec, out);
}

struct GateOnRegisters : OpConversionPattern<gdn::GateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::GateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getDistributedLayout(op.getType()))
      return failure();
    Location loc = op.getLoc();
    Value negDecayRate =
        op.getDomain() == gdn::GateDomain::raw
            ? gdn::emitNegDecayRate(rewriter, loc, adaptor.getALog())
            : Value();
    rewriter.replaceOp(
        op, perRegister(rewriter, loc, adaptor.getInput(),
                        getTypeConverter()->convertType(op.getType()),
                        [&](Value x) {
                          return gdn::emitGate(rewriter, loc, op.getDomain(), x,
                                               negDecayRate, adaptor.getDtBias());
                        }));
    return success();
  }
};

struct SigmoidOnRegisters : OpConversionPattern<gdn::SigmoidOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::SigmoidOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getDistributedLayout(op.getType()))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOp(
        op, perRegister(rewriter, loc, adaptor.getInput(),
                        getTypeConverter()->convertType(op.getType()),
                        [&](Value x) { return gdn::emitSigmoid(rewriter, loc, x); }));
    return success();
  }
};

struct CumsumThroughShared : OpConversionPattern<gdn::CumsumOp> {
  CumsumThroughShared(TileTypeConverter &converter, MLIRContext *ctx,
                      SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx), plan(plan) {}

  LogicalResult
  matchAndRewrite(gdn::CumsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    if (!getDistributedLayout(type))
      return failure();
    Location loc = op.getLoc();
    Value scratch = writeToScratch(rewriter, loc, plan, adaptor.getInput(), type);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    SmallVector<Value> out;
    for (const auto &coord : emitThreadCoords(rewriter, loc, type)) {
      Value end = arith::AddIOp::create(rewriter, loc, coord[0], c1);
      auto loop = scf::ForOp::create(
          rewriter, loc, c0, end, c1, ValueRange{zero},
          [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
            Value x = memref::LoadOp::create(b, l, scratch, i);
            scf::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, acc[0], x)});
          });
      out.push_back(loop.getResult(0));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(type), out);
    return success();
  }

  SharedMemoryPlan &plan;
};
} // namespace

void gdn_gpu::populateGateOpToNVVMPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           SharedMemoryPlan &plan) {
  patterns.add<GateOnRegisters, SigmoidOnRegisters>(converter, patterns.getContext());
  patterns.add<CumsumThroughShared>(converter, patterns.getContext(), plan);
}
