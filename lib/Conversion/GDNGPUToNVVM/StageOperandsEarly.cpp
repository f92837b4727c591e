//===- StageOperandsEarly.cpp - gdn-gpu-stage-operands-early --------------===//
//
// A tile staged for the tensor cores lives in shared memory from its staging
// on; until then it holds registers. The kernel file orders a chunk's work by
// meaning (prepare, step, emit), so a tile such as `kd` or `qg` is computed in
// prepare and staged just before the step or emit matmul that reads it, and
// its registers stay live across every matmul in between: that is where the
// fused kernel spilled. This pass moves each staging, with the pure ops that
// exist only to feed it, up to just after their inputs, as long as the
// kernel's shared-memory plan stays within the budget.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUSTAGEOPERANDSEARLY
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
bool isStaging(Operation *op) {
  auto cvt = dyn_cast<ConvertLayoutOp>(op);
  return cvt && isa_and_nonnull<DotOperandAttr>(cvt.getType().getEncoding());
}

/// `staging` and the ops of its block that exist only to feed it: pure, no
/// regions, every result used only inside the set. In program order.
SmallVector<Operation *> feedingChain(Operation *staging) {
  Block *block = staging->getBlock();
  llvm::SetVector<Operation *> chain;
  chain.insert(staging);
  auto onlyFeedsChain = [&](Operation *def) {
    return llvm::all_of(def->getUsers(), [&](Operation *user) {
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      return inBlock && chain.contains(inBlock);
    });
  };
  // A producer qualifies once all its users are in: repeat until stable.
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < chain.size(); ++i)
      for (Value operand : chain[i]->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || def->getBlock() != block || chain.contains(def) ||
            !isPure(def) || def->getNumRegions() != 0 || isStaging(def) ||
            !onlyFeedsChain(def))
          continue;
        chain.insert(def);
        grew = true;
      }
  }
  SmallVector<Operation *> ops = chain.takeVector();
  llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ops;
}

/// The last op of `op`'s block that defines one of its operands (null: none).
Operation *lastInputOf(Operation *op) {
  Block *block = op->getBlock();
  Operation *last = nullptr;
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (!def || def->getBlock() != block)
      continue;
    if (!last || last->isBeforeInBlock(def))
      last = def;
  }
  return last;
}

struct StageOperandsEarlyPass
    : public gdn::impl::GDNGPUStageOperandsEarlyBase<StageOperandsEarlyPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<MmaPrecision> precision = parseMmaPrecision(
        mmaPrecision, "gdn-gpu-stage-operands-early", getOperation());
    if (failed(precision))
      return signalPassFailure();
    int64_t stagedBytes = stagedElementBytes(*precision);
    getOperation().walk([&](gpu::GPUFuncOp kernel) {
      SmallVector<Operation *> stagings;
      kernel.walk([&](Operation *op) {
        if (isStaging(op))
          stagings.push_back(op);
      });
      int64_t bytes = SharedMemoryPlan(kernel, stagedBytes).totalBytes();
      for (Operation *staging : stagings)
        bytes = hoist(kernel, staging, stagedBytes, bytes);
    });
  }

  /// Moves `staging`'s chain up; undoes the move if the plan outgrows the
  /// budget (and what it needed before). Returns the plan's bytes.
  int64_t hoist(gpu::GPUFuncOp kernel, Operation *staging, int64_t stagedBytes,
                int64_t bytesBefore) {
    SmallVector<Operation *> chain = feedingChain(staging);
    SmallVector<Operation *> nextOf;
    for (Operation *op : chain)
      nextOf.push_back(op->getNextNode());
    // In program order, so each op's inputs have already moved up.
    for (Operation *op : chain) {
      if (Operation *after = lastInputOf(op))
        op->moveAfter(after);
      else
        op->moveBefore(&op->getBlock()->front());
    }
    int64_t bytes = SharedMemoryPlan(kernel, stagedBytes).totalBytes();
    if (bytes <= std::max<int64_t>(sharedBudget, bytesBefore))
      return bytes;
    // Back in reverse order: each op's old successor is then in place.
    for (size_t i = chain.size(); i-- > 0;)
      chain[i]->moveBefore(nextOf[i]);
    return bytesBefore;
  }
};
} // namespace
