//===- ElideBarriers.cpp - gdn-gpu-elide-barriers -------------------------===//
//
// The tile lowering brackets every trip through shared memory with block
// barriers, one op at a time. It assumes what the tile kernels do: threads
// of a block never pass data to each other through global memory, so only
// shared-memory accesses need the barriers. Between ops, some barriers order nothing: a
// barrier right after a barrier, or one between two runs of shared-memory
// writes (two stagings in a row). The fused kernel had 57 barriers a chunk;
// this pass drops the ones no shared-memory read or tensor-core op sits
// next to.
//
//===----------------------------------------------------------------------===//

#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUELIDEBARRIERS
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;

namespace {
/// What an op does to shared memory, as far as barriers care.
enum class SharedAccess { None, Write, Other };

bool isWorkgroup(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(memref);
}

bool isGlobal(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  Attribute space = memref.getMemorySpace();
  if (!space)
    return true;
  auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space);
  return gpuSpace && gpuSpace.getValue() == gpu::AddressSpace::Global;
}

SharedAccess classify(Operation *op);

/// An `scf.if` touches no shared memory when none of its ops does (row
/// guards around global stores, the next chunk's L2 prefetches).
bool touchesNoSharedMemory(scf::IfOp guard) {
  WalkResult result = guard->walk([&](Operation *inner) {
    if (inner == guard.getOperation() || isa<scf::IfOp, scf::YieldOp>(inner))
      return WalkResult::advance(); // nested ifs: their ops are walked too
    return classify(inner) == SharedAccess::None ? WalkResult::advance()
                                                 : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

SharedAccess classify(Operation *op) {
  // A proxy fence publishes the thread's writes to the async proxy; the
  // barrier after it is what lets other threads' wgmma read them. It
  // counts as a write, so it never makes a run look empty.
  if (isa<NVVM::FenceProxyOp>(op))
    return SharedAccess::Write;
  // An accumulator staged by stmatrix (ConvertLayoutOpToNVVM.cpp).
  if (isa<NVVM::StMatrixOp>(op))
    return SharedAccess::Write;
  // The lowering's thread-id and opaque-address moves (TileLowering.cpp)
  // and the empty register fences around wgmma (MatmulOpToWGMMA.cpp).
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op))
    return asmOp.getAsmString().empty() ||
                   asmOp.getAsmString().starts_with("mov.")
               ? SharedAccess::None
               : SharedAccess::Other;
  if (isa<memref::StoreOp, vector::StoreOp>(op)) {
    Type memref = op->getOperand(1).getType();
    if (isWorkgroup(memref))
      return SharedAccess::Write;
    return isGlobal(memref) ? SharedAccess::None : SharedAccess::Other;
  }
  if (isa<memref::LoadOp, vector::LoadOp>(op))
    return isGlobal(op->getOperand(0).getType()) ? SharedAccess::None
                                                 : SharedAccess::Other;
  // An L2 prefetch of global memory (TilePrefetchToNVVM).
  if (isa<NVVM::PrefetchOp>(op))
    return SharedAccess::None;
  if (auto guard = dyn_cast<scf::IfOp>(op))
    return touchesNoSharedMemory(guard) ? SharedAccess::None
                                        : SharedAccess::Other;
  if (op->getNumRegions() != 0 || isa<NVVM::NVVMDialect>(op->getDialect()))
    return SharedAccess::Other; // wgmma reads shared memory asynchronously
  return isMemoryEffectFree(op) ? SharedAccess::None : SharedAccess::Other;
}

/// Removes the barriers of `block` that order nothing (see the pass
/// description). Returns how many.
unsigned elideInBlock(Block &block) {
  // For each barrier, the ops since the previous barrier of the block: none
  // at all, or only shared-memory writes (and ops touching no shared
  // memory). What precedes the block's first barrier is unknown here.
  struct Run {
    bool empty = true;
    bool writesOnly = true;
  };
  SmallVector<NVVM::Barrier0Op> barriers;
  SmallVector<Run> before;
  Run current{false, false};
  for (Operation &op : block) {
    if (auto barrier = dyn_cast<NVVM::Barrier0Op>(op)) {
      barriers.push_back(barrier);
      before.push_back(current);
      current = Run();
      continue;
    }
    SharedAccess access = classify(&op);
    if (access != SharedAccess::None)
      current.empty = false;
    if (access == SharedAccess::Other)
      current.writesOnly = false;
  }
  // The run after barrier i is the one before barrier i + 1; after the last
  // barrier comes the unknown rest of the block. Removing barrier i merges
  // the runs around it into the run before barrier i + 1.
  unsigned removed = 0;
  for (size_t i = 1; i < barriers.size(); ++i) {
    bool last = i + 1 == barriers.size();
    bool rightAfterBarrier = before[i].empty;
    bool betweenWrites =
        before[i].writesOnly && !last && before[i + 1].writesOnly;
    if (!rightAfterBarrier && !betweenWrites)
      continue;
    barriers[i].erase();
    ++removed;
    if (!last) {
      before[i + 1].empty = before[i].empty && before[i + 1].empty;
      before[i + 1].writesOnly = before[i].writesOnly && before[i + 1].writesOnly;
    }
  }
  return removed;
}

/// Removes each proxy fence of `block` that another one follows with only
/// shared-memory writes (and ops touching no shared memory) between them:
/// a `fence.proxy.async` covers every earlier write of its thread, and
/// nothing reads through the async proxy before the later fence. Each fence
/// is a `MEMBAR` in SASS, which waits for the thread's outstanding global
/// loads. Returns how many.
unsigned mergeFencesInBlock(Block &block) {
  NVVM::FenceProxyOp pending;
  SmallVector<NVVM::FenceProxyOp> redundant;
  for (Operation &op : block) {
    auto fence = dyn_cast<NVVM::FenceProxyOp>(op);
    if (fence && fence.getKind() != NVVM::ProxyKind::async_shared)
      fence = nullptr; // another proxy: not one of the stagings' fences
    if (fence) {
      // Only a fence of the same scope covers the earlier one.
      if (pending && pending.getSpace() == fence.getSpace())
        redundant.push_back(pending);
      pending = fence;
      continue;
    }
    if (isa<NVVM::Barrier0Op>(op) || classify(&op) == SharedAccess::Other)
      pending = nullptr;
  }
  for (NVVM::FenceProxyOp fence : redundant)
    fence.erase();
  return redundant.size();
}

struct ElideBarriersPass
    : public gdn::impl::GDNGPUElideBarriersBase<ElideBarriersPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp kernel) {
      kernel.walk([](Block *block) {
        elideInBlock(*block);
        mergeFencesInBlock(*block);
      });
    });
  }
};
} // namespace
