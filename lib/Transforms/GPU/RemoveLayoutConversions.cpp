//===- RemoveLayoutConversions.cpp - accumulators keep their layout -------===//
//
// A small form of Triton's RemoveLayoutConversions: the accumulator layouts
// the matmuls anchor spread forward through elementwise work, row scalings
// and loop-carried values, so a tile leaves the accumulator only where an
// op needs another layout (a shared-memory operand, a row reduction);
// global stores write the accumulator's registers directly, and a tile
// loaded from global memory only to be converted into an accumulator layout
// is loaded in that layout (through a widening cast and a loop-carried
// prefetch too). Layouts only ever move towards accumulator layouts (a
// conversion between two accumulator layouts stays where it is), which
// bounds the rewriting.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Dialect/GPU/GDNGPUDialect.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUREMOVELAYOUTCONVERSIONS
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
RankedTensorType withLayout(Type type, Attribute layout) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape(), t.getElementType(), layout);
}

Attribute layoutOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t ? t.getEncoding() : Attribute();
}

/// Layouts the matmuls produce: a tile in one should stay there.
bool isAccumulatorLayout(Attribute layout) {
  if (auto slice = dyn_cast_or_null<SliceAttr>(layout))
    return isa<WarpgroupMmaAttr>(slice.getParent());
  return isa_and_nonnull<WarpgroupMmaAttr>(layout);
}

/// The accumulator layout `v` was converted out of, if any.
Attribute accumulatorSource(Value v) {
  auto cvt = v.getDefiningOp<ConvertLayoutOp>();
  if (!cvt)
    return {};
  Attribute src = layoutOf(cvt.getSource());
  return isAccumulatorLayout(src) ? src : Attribute();
}

/// `v` in `layout`: through the conversion it came out of, rebuilt there
/// when it is a splat or constant (free in any layout), else converted.
Value materializeIn(PatternRewriter &rewriter, Location loc, Value v,
                    Attribute layout) {
  auto type = withLayout(v.getType(), layout);
  if (v.getType() == type)
    return v;
  if (auto cvt = v.getDefiningOp<ConvertLayoutOp>())
    if (cvt.getSource().getType() == type)
      return cvt.getSource();
  if (auto splat = v.getDefiningOp<tensor::SplatOp>())
    return tensor::SplatOp::create(rewriter, loc, type, splat.getInput());
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return arith::ConstantOp::create(rewriter, loc, type, dense.reshape(type));
  return ConvertLayoutOp::create(rewriter, loc, type, v);
}

bool isElementwiseTileOp(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (isa<gdn::MaskRowsOp, gdn::SigmoidOp>(op))
    return true;
  return op->hasTrait<OpTrait::Elementwise>() &&
         llvm::all_of(op->getOperandTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); });
}

/// op(convert(acc), y, ...) -> convert(op(acc, convert(y), ...)).
struct ElementwiseInAccumulator : RewritePattern {
  ElementwiseInAccumulator(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseTileOp(op))
      return failure();
    Attribute target;
    for (Value operand : op->getOperands())
      if ((target = accumulatorSource(operand)))
        break;
    Type oldType = op->getResult(0).getType();
    if (!target || layoutOf(op->getResult(0)) == target)
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(isa<RankedTensorType>(operand.getType())
                             ? materializeIn(rewriter, loc, operand, target)
                             : operand);
    Operation *moved = rewriter.clone(*op);
    moved->setOperands(operands);
    moved->getResult(0).setType(withLayout(oldType, target));
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, oldType, moved->getResult(0));
    return success();
  }
};

/// scale_rows(convert(acc), v) -> convert(scale_rows(acc, v in acc's rows)).
struct ScaleRowsInAccumulator : OpRewritePattern<gdn::ScaleRowsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(gdn::ScaleRowsOp op,
                                PatternRewriter &rewriter) const override {
    auto acc = dyn_cast_or_null<WarpgroupMmaAttr>(accumulatorSource(op.getInput()));
    if (!acc)
      return failure();
    Location loc = op.getLoc();
    Value input = op.getInput().getDefiningOp<ConvertLayoutOp>().getSource();
    Value scale = materializeIn(rewriter, loc, op.getScale(),
                                SliceAttr::get(getContext(), 1, acc));
    auto scaled = gdn::ScaleRowsOp::create(rewriter, loc, input.getType(), input, scale);
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, op.getType(), scaled);
    return success();
  }
};

/// A loop-carried tile whose next value leaves an accumulator through a
/// conversion is carried in the accumulator: the conversion moves to the
/// loop's entry (once) and to its uses.
struct CarryInAccumulator : OpRewritePattern<scf::ForOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(scf::ForOp loop,
                                PatternRewriter &rewriter) const override {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    // Plain indices: the lambdas below capture them (clang 14 cannot
    // capture structured bindings).
    for (unsigned i = 0, e = yield.getNumOperands(); i < e; ++i) {
      Value next = yield.getOperand(i);
      Attribute acc = accumulatorSource(next);
      if (!acc)
        continue;
      BlockArgument carried = loop.getRegionIterArg(i);
      Type oldType = carried.getType();
      Type accType = withLayout(oldType, acc);
      Location loc = loop.getLoc();

      rewriter.setInsertionPoint(loop);
      Value init = materializeIn(rewriter, loc, loop.getInitArgs()[i], acc);
      rewriter.modifyOpInPlace(loop, [&] {
        loop.getInitArgsMutable()[i].assign(init);
        carried.setType(accType);
        loop.getResult(i).setType(accType);
      });
      rewriter.setInsertionPointToStart(loop.getBody());
      auto inside = ConvertLayoutOp::create(rewriter, loc, oldType, carried);
      rewriter.replaceAllUsesExcept(carried, inside.getResult(), inside);
      rewriter.modifyOpInPlace(yield, [&] {
        yield->setOperand(i, next.getDefiningOp<ConvertLayoutOp>().getSource());
      });
      rewriter.setInsertionPointAfter(loop);
      auto after = ConvertLayoutOp::create(rewriter, loc, oldType, loop.getResult(i));
      rewriter.replaceAllUsesExcept(loop.getResult(i), after.getResult(), after);
      return success();
    }
    return failure();
  }
};

/// tensor.extract(convert(x)) -> tensor.extract(x): one element is read the
/// same way from any layout.
struct ExtractThroughConversion : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto cvt = op.getTensor().getDefiningOp<ConvertLayoutOp>();
    if (!cvt)
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getTensorMutable().assign(cvt.getSource()); });
    return success();
  }
};

/// gdn.state_store / gdn.tile_store of convert(x), x in an accumulator
/// layout -> the store of x: every thread writes its own registers (runs of
/// two columns), with no trip through shared memory and no barrier. The
/// paged kernel converted its 128 x 128 state every chunk for a checkpoint
/// store that only every page-th chunk makes (8 x 4096 paged: 2.01 -> 1.85
/// ms on the H200); `o` leaves each chunk the same way.
template <typename StoreOp>
struct StoreFromAccumulator : OpRewritePattern<StoreOp> {
  using OpRewritePattern<StoreOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    Value stored = op.getValue();
    Attribute src = accumulatorSource(stored);
    if (!src || isa<SliceAttr>(src))
      return failure();
    auto cvt = stored.getDefiningOp<ConvertLayoutOp>();
    rewriter.modifyOpInPlace(op, [&] { op.getValueMutable().assign(cvt.getSource()); });
    return success();
  }
};

/// A global load whose only use is `v`'s conversion.
Operation *loadUsedOnlyBy(Value v) {
  Operation *def = v.getDefiningOp();
  if (!isa_and_nonnull<gdn::TileLoadOp, gdn::StateLoadOp>(def) ||
      !v.hasOneUse())
    return nullptr;
  return def;
}

/// The accumulator layout a conversion of a distributed tile goes into.
WarpgroupMmaAttr intoAccumulator(ConvertLayoutOp cvt) {
  return dyn_cast_or_null<WarpgroupMmaAttr>(layoutOf(cvt.getResult()));
}

/// convert(load) -> load in the accumulator layout: each thread loads its
/// own registers (runs of two columns) instead of the tile going through
/// shared memory and two barriers. split-seq's R (replay's prefix steps)
/// and its carried U are loaded only to be added to an accumulator.
struct LoadInAccumulator : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvertLayoutOp cvt,
                                PatternRewriter &rewriter) const override {
    Operation *load = loadUsedOnlyBy(cvt.getSource());
    if (!intoAccumulator(cvt) || !load)
      return failure();
    rewriter.setInsertionPoint(load);
    Operation *moved = rewriter.clone(*load);
    moved->getResult(0).setType(cvt.getType());
    rewriter.replaceOp(cvt, moved->getResults());
    rewriter.eraseOp(load);
    return success();
  }
};

/// convert(extf(x)) -> extf(convert(x)): the conversion moves the narrow
/// tile, and reaches x's load or loop-carried value.
struct ConvertBeforeWidening : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvertLayoutOp cvt,
                                PatternRewriter &rewriter) const override {
    auto ext = cvt.getSource().getDefiningOp<arith::ExtFOp>();
    WarpgroupMmaAttr acc = intoAccumulator(cvt);
    // From one accumulator layout into another, ElementwiseInAccumulator
    // would move the conversion back after the cast.
    if (!acc || !ext || !ext->hasOneUse() ||
        isAccumulatorLayout(layoutOf(ext.getIn())))
      return failure();
    Value narrow = materializeIn(rewriter, cvt.getLoc(), ext.getIn(), acc);
    rewriter.replaceOpWithNewOp<arith::ExtFOp>(cvt, cvt.getType(), narrow);
    return success();
  }
};

/// A loop-carried tile used only through a conversion into an accumulator
/// layout, whose next value is a load made for it (a prefetch of the next
/// iteration's tile), is carried in that layout: the load then loads it so
/// (LoadInAccumulator), and so does the one before the loop.
struct CarryLoadInAccumulator : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvertLayoutOp cvt,
                                PatternRewriter &rewriter) const override {
    auto carried = dyn_cast<BlockArgument>(cvt.getSource());
    WarpgroupMmaAttr acc = intoAccumulator(cvt);
    auto loop = carried ? dyn_cast<scf::ForOp>(carried.getOwner()->getParentOp())
                        : scf::ForOp();
    if (!acc || !loop || !carried.hasOneUse() ||
        carried.getOwner() != loop.getBody() || carried.getArgNumber() == 0)
      return failure();
    unsigned i = carried.getArgNumber() - 1;
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    if (!loadUsedOnlyBy(yield.getOperand(i)))
      return failure();
    Type oldType = carried.getType();
    Type accType = cvt.getType();
    Location loc = loop.getLoc();

    rewriter.setInsertionPoint(loop);
    Value init = materializeIn(rewriter, loc, loop.getInitArgs()[i], acc);
    rewriter.setInsertionPoint(yield);
    Value next = materializeIn(rewriter, loc, yield.getOperand(i), acc);
    rewriter.modifyOpInPlace(loop, [&] {
      loop.getInitArgsMutable()[i].assign(init);
      carried.setType(accType);
      loop.getResult(i).setType(accType);
    });
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(i, next); });
    rewriter.replaceOp(cvt, carried);
    if (!loop.getResult(i).use_empty()) {
      rewriter.setInsertionPointAfter(loop);
      auto after = ConvertLayoutOp::create(rewriter, loc, oldType, loop.getResult(i));
      rewriter.replaceAllUsesExcept(loop.getResult(i), after.getResult(), after);
    }
    return success();
  }
};

struct RemoveLayoutConversionsPass
    : public gdn::impl::GDNGPURemoveLayoutConversionsBase<
          RemoveLayoutConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ElementwiseInAccumulator>(&getContext());
    patterns.add<ScaleRowsInAccumulator, CarryInAccumulator,
                 ExtractThroughConversion, StoreFromAccumulator<gdn::StateStoreOp>,
                 StoreFromAccumulator<gdn::TileStoreOp>, LoadInAccumulator,
                 ConvertBeforeWidening, CarryLoadInAccumulator>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
