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
// Global stores of tiles move up the same way (with the conversions that
// feed them), past ops that touch only other memrefs: a kernel that stores
// values it does not otherwise use (split-seq transition's prepared values
// for replay=load) then frees their registers at once instead of at the
// end of the stage. A staging chain that holds a product moves as one run
// (see hoist).
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"
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

bool isTileStore(Operation *op) {
  return isa<gdn::TileStoreOp, gdn::StateStoreOp>(op);
}

/// Whether a store to `target` may move above `op`: `op` (with what it
/// nests) declares its effects, and each reads or writes a named memref
/// other than `target`. Distinct memref values are taken not to alias, as
/// everywhere in the tile kernels (arguments are separate tensors,
/// workspaces separate buffers): so a store may pass another workspace's
/// store, and a value's registers need not wait for the stores before it.
bool storeMayPass(Operation *op, Value target) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return false;
  return llvm::all_of(*effects, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()) &&
           e.getValue() && e.getValue() != target;
  });
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

/// The last op of the block that defines an input of `chain` from outside
/// it (null: none): the chain may move up to just below it.
Operation *chainFloor(ArrayRef<Operation *> chain) {
  Operation *floor = nullptr;
  for (Operation *op : chain)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && def->getBlock() == chain.back()->getBlock() &&
          !llvm::is_contained(chain, def) &&
          (!floor || floor->isBeforeInBlock(def)))
        floor = def;
  return floor;
}

/// Moves `chain` (in program order) to just after `floor`, each op right
/// after the previous one (to the block's front with no floor).
void moveChainAfter(ArrayRef<Operation *> chain, Operation *floor) {
  Operation *after = floor;
  for (Operation *op : chain) {
    if (after)
      op->moveAfter(after);
    else
      op->moveBefore(&op->getBlock()->front());
    after = op;
  }
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
      SmallVector<Operation *> stores;
      kernel.walk([&](Operation *op) {
        if (isTileStore(op))
          stores.push_back(op);
      });
      for (Operation *store : stores)
        hoistStore(store);
    });
  }

  /// Moves `store` and its feeding chain up to just after their inputs,
  /// stopping below the first op the store may not pass.
  void hoistStore(Operation *store) {
    Value target = store->getOperand(1);
    SmallVector<Operation *> chain = feedingChain(store);
    // The highest point: below the last input of any op of the chain that
    // comes from outside it, and below every op the store may not pass.
    Operation *floor = chainFloor(chain);
    for (Operation *op = store->getPrevNode(); op && op != floor;
         op = op->getPrevNode())
      if (!llvm::is_contained(chain, op) && !storeMayPass(op, target)) {
        floor = op; // below the floor found so far: the walk stops there
        break;
      }
    moveChainAfter(chain, floor);
  }

  /// Moves `staging`'s chain up; undoes the move if the plan outgrows the
  /// budget (and what it needed before). Returns the plan's bytes.
  int64_t hoist(gpu::GPUFuncOp kernel, Operation *staging, int64_t stagedBytes,
                int64_t bytesBefore) {
    SmallVector<Operation *> chain = feedingChain(staging);
    SmallVector<Operation *> nextOf;
    for (Operation *op : chain)
      nextOf.push_back(op->getNextNode());
    // Each op just below its own inputs, in program order, so that what it
    // consumes dies early; but a chain with a product (of staged operands)
    // moves as one run below its last outside input: the product alone
    // would rise to its operands and hold its result's registers across
    // the work before the chain's other inputs.
    if (llvm::any_of(chain, llvm::IsaPred<gdn::MatmulOp>)) {
      moveChainAfter(chain, chainFloor(chain));
    } else {
      for (Operation *op : chain) {
        if (Operation *after = lastInputOf(op))
          op->moveAfter(after);
        else
          op->moveBefore(&op->getBlock()->front());
      }
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
