//===- FoldMatmulAccumulate.cpp - c + A B as one matmul with acc ----------===//
//
// arith.addf(c, gdn.matmul(a, b)) -> gdn.matmul(a, b) acc(c), when the
// matmul has no mask and the add is its only user. The new matmul sits at
// the add, where both c and the operands are available.
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
    rewriter.replaceOpWithNewOp<MatmulOp>(
        add, mm.getType(), mm.getLhs(), mm.getRhs(), /*decay=*/Value(), acc,
        mm.getTransposeA(), mm.getTransposeB(), MaskKind::none);
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
