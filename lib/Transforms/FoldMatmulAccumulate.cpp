//===- FoldMatmulAccumulate.cpp - c + A B as one matmul with acc ----------===//
//
// arith.addf(c, gdn.matmul(a, b)) -> gdn.matmul(a, b) acc(c), when the
// matmul has no mask and the add is its only user. The new matmul sits
// where the old one was when c is available there, else right after c's
// definition when that follows in the same block with no other matmul in
// between. Otherwise the add stays: moving a matmul past another would keep
// both one's staged operands alive across the other (the GPU plans their
// shared memory by lifetime; split-seq's transition would outgrow it).
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
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

struct AddOfMatmul : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(add.getType()))
      return failure();
    // Of two products, the later one absorbs the earlier.
    Value acc = add.getLhs();
    MatmulOp mm = foldableProduct(add.getRhs());
    if (!mm) {
      acc = add.getRhs();
      mm = foldableProduct(add.getLhs());
    }
    if (!mm || acc.getType() != mm.getType())
      return failure();
    if (DominanceInfo(mm).properlyDominates(acc, mm)) {
      rewriter.setInsertionPoint(mm);
    } else {
      Operation *def = acc.getDefiningOp();
      if (!def || def->getBlock() != mm->getBlock() || !mm->isBeforeInBlock(def))
        return failure();
      for (Operation &op : llvm::make_range(std::next(mm->getIterator()),
                                            def->getIterator())) {
        bool product = false;
        op.walk([&](MatmulOp) { product = true; });
        if (product)
          return failure();
      }
      rewriter.setInsertionPointAfter(def);
    }
    Value folded = MatmulOp::create(rewriter, add.getLoc(), mm.getType(),
                                    mm.getLhs(), mm.getRhs(), /*decay=*/Value(),
                                    acc, mm.getTransposeA(), mm.getTransposeB(),
                                    MaskKind::none);
    rewriter.replaceOp(add, folded);
    rewriter.eraseOp(mm);
    return success();
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
