//===- GateOpToNVVM.cpp - gates and the cumulative decay on registers -----===//
//
// Gates and sigmoids are per-register formulas (ScalarFormulas.h, shared
// with the CPU path). The in-chunk cumulative sum goes through the scratch
// area: every thread writes its elements and the block meets. Then, for a
// vector spread one element a lane (the layout 1-D tiles get), every warp
// scans each 32-element segment with shuffles (five steps) and adds the
// totals of the segments before; otherwise each register sums the prefix
// it needs (up to 64 dependent adds: 13% of the split-seq replay kernel
// on the H200 before the warp scan).
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Dialect/ScalarFormulas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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
    if (Value scanned = warpScan(rewriter, loc, scratch, type)) {
      rewriter.replaceOp(op, scanned);
      return success();
    }
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

  /// The registers of cumsum(scratch) when `type`'s layout puts element i
  /// on lane i % 32 (one element a lane, 32 lanes along the vector); null
  /// otherwise. The scan adds in a tree, not in order, so it carries each
  /// partial sum as an unevaluated pair hi + lo (error-free two-sums): the
  /// prefixes come out within an ulp of the exact sums (log decays all have
  /// one sign, so nothing cancels). A plain f32 tree scan rounded
  /// differently from the sequential sum, and with decays near softplus
  /// overflow (log decays of -1e4) exp(gamma_i - gamma_j) lost enough to
  /// fail the GPU matrix (state error 7e-3 against 5e-3).
  Value warpScan(OpBuilder &b, Location loc, Value scratch,
                 RankedTensorType type) const {
    auto blocked = dyn_cast<BlockedAttr>(type.getEncoding());
    const int64_t n = type.getDimSize(0);
    if (!blocked || type.getRank() != 1 || blocked.getSizePerThread()[0] != 1 ||
        blocked.getThreadsPerWarp()[0] != kWarpSize || n % kWarpSize != 0)
      return {};
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    auto i32 = [&](int32_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); };
    auto add = [&](Value x, Value y) { return arith::AddFOp::create(b, loc, x, y).getResult(); };
    auto sub = [&](Value x, Value y) { return arith::SubFOp::create(b, loc, x, y).getResult(); };
    using Pair = std::pair<Value, Value>;
    // (hi, lo) + (hi', lo'): two-sum of the highs, the lows added to the
    // error, renormalised.
    auto pairAdd = [&](Pair x, Pair y) -> Pair {
      Value s = add(x.first, y.first);
      Value bv = sub(s, x.first);
      Value err = add(sub(x.first, sub(s, bv)), sub(y.first, bv));
      Value e = add(err, add(x.second, y.second));
      Value hi = add(s, e);
      return {hi, sub(e, sub(hi, s))};
    };
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    Value width = i32(kWarpSize);
    Value lane = arith::RemUIOp::create(b, loc, threadIdHere(b, loc), c(kWarpSize));
    auto shuffle = [&](Value v, int32_t offset, gpu::ShuffleMode mode) {
      return gpu::ShuffleOp::create(b, loc, v, i32(offset), width, mode);
    };
    // Inclusive scan of each segment; then each segment's offset, the
    // totals (lane 31) of the segments before it. (The last total is dead,
    // and the per-register sums repeat; canonicalize and CSE drop both.)
    SmallVector<Pair> scans, offsets;
    Pair offset{zero, zero};
    for (int64_t first = 0; first < n; first += kWarpSize) {
      Value index = arith::AddIOp::create(b, loc, lane, c(first));
      Pair x{memref::LoadOp::create(b, loc, scratch, index).getResult(), zero};
      for (int32_t d = 1; d < int32_t(kWarpSize); d *= 2) {
        auto hi = shuffle(x.first, d, gpu::ShuffleMode::UP);
        auto lo = shuffle(x.second, d, gpu::ShuffleMode::UP);
        Value valid = hi.getValid();
        x = pairAdd(x, {arith::SelectOp::create(b, loc, valid, hi.getShuffleResult(), zero),
                        arith::SelectOp::create(b, loc, valid, lo.getShuffleResult(), zero)});
      }
      scans.push_back(x);
      offsets.push_back(offset);
      offset = pairAdd(
          offset, {shuffle(x.first, kWarpSize - 1, gpu::ShuffleMode::IDX).getShuffleResult(),
                   shuffle(x.second, kWarpSize - 1, gpu::ShuffleMode::IDX).getShuffleResult()});
    }
    SmallVector<Value> out;
    for (const auto &coord : emitThreadCoords(b, loc, type)) {
      Value segment = arith::DivUIOp::create(b, loc, coord[0], c(kWarpSize));
      Value v = pairAdd(scans[0], offsets[0]).first;
      for (size_t j = 1; j < scans.size(); ++j)
        v = arith::SelectOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, segment, c(j)),
            pairAdd(scans[j], offsets[j]).first, v);
      out.push_back(v);
    }
    return vector::FromElementsOp::create(b, loc, getTypeConverter()->convertType(type),
                                          out);
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
