//===- FoldMatmulAccumulate.cpp - c + A B as one matmul with acc ----------===//
//
// arith.addf(c, gdn.matmul(a, b)) -> gdn.matmul(a, b) acc(c), when the
// matmul has no mask and the add is its only user. The new matmul sits
// where the old one was when c is available there, else right after c's
// definition when that follows in the same block, past other matmuls if
// need be: the product's registers then never live beside c's (split-seq's
// transition spilled while it kept U^T Kd in registers across two 128 x 128
// products). When both operands are products, the later one absorbs the
// earlier.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNFOLDMATMULACCUMULATE
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn;

namespace {
/// The matmul `v` comes from, if the add may absorb it.
MatmulOp foldableProduct(Value v) {
  auto mm = v.getDefiningOp<MatmulOp>();
  if (!mm || mm.getMask() != MaskKind::none || mm.getAcc() ||
      !mm.getResult().hasOneUse())
    return nullptr;
  return mm;
}

/// Whether `v` is available at `op` without looking at CFG dominance: it is
/// an argument of a block holding `op`, or defined earlier in a block that
/// holds `op` (or an op around it). Conservative across multi-block regions.
bool availableAt(Value v, Operation *op) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner()->findAncestorOpInBlock(*op) != nullptr;
  Operation *def = v.getDefiningOp();
  Operation *around = def->getBlock()->findAncestorOpInBlock(*op);
  return around && around != def && def->isBeforeInBlock(around);
}

/// Where `acc + mm` may become one matmul: at `mm` when `acc` is available
/// there, else right after `acc`'s definition when that follows `mm` in
/// its block (`mm`'s operands dominate it there). Null when neither holds.
Operation *foldPoint(Value acc, MatmulOp mm, bool mayMove, bool &after) {
  after = false;
  if (availableAt(acc, mm))
    return mm;
  Operation *def = acc.getDefiningOp();
  if (!mayMove)
    return nullptr;
  if (!def || def->getBlock() != mm->getBlock() || !mm->isBeforeInBlock(def))
    return nullptr;
  after = true;
  return def;
}

struct AddOfMatmul : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(add.getType()))
      return failure();
    // Either operand may be the product; when both are, the one that can
    // absorb the other where it stands (the later one) is taken before
    // moving either.
    for (bool mayMove : {false, true}) {
      for (auto [accValue, product] : {std::pair(add.getLhs(), add.getRhs()),
                                       std::pair(add.getRhs(), add.getLhs())}) {
        Value acc = accValue;
        MatmulOp mm = foldableProduct(product);
        if (!mm || acc.getType() != mm.getType())
          continue;
        bool after = false;
        Operation *at = foldPoint(acc, mm, mayMove, after);
        if (!at)
          continue;
        if (after)
          rewriter.setInsertionPointAfter(at);
        else
          rewriter.setInsertionPoint(at);
        Value folded = MatmulOp::create(
            rewriter, add.getLoc(), mm.getType(), mm.getLhs(), mm.getRhs(),
            /*decay=*/Value(), acc, mm.getTransposeA(), mm.getTransposeB(),
            MaskKind::none);
        rewriter.replaceOp(add, folded);
        rewriter.eraseOp(mm);
        return success();
      }
    }
    return failure();
  }
};

struct FoldMatmulAccumulatePass
    : public gdn::impl::GDNFoldMatmulAccumulateBase<FoldMatmulAccumulatePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AddOfMatmul>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
