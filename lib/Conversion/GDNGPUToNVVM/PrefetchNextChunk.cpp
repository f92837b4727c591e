//===- PrefetchNextChunk.cpp - ask for chunk c + 1's tiles during chunk c -===//
//
// A block works through its chunks one at a time, and each chunk's first
// consumers of q / k / v / gates wait for those loads to come from HBM
// (the H200 profiles of split-seq's replay: 10% to 20% of the stall
// samples, long-scoreboard, at the top of the chunk). Here every tile load
// of a chunk loop whose address follows the loop's induction variable gets
// a twin gdn.tile_prefetch of the next iteration's tile, issued at the top
// of the loop body: while chunk c computes, chunk c + 1's lines travel to
// L2, and its loads then wait for L2 only. (Issued after the chunk's own
// loads instead, the transition spilled more and every split-seq shape ran
// 1% to 2% slower on the H200: bench/RESULTS.md, set v4.)
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"
#include "gdn/Dialect/AttrNames.h"

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUPREFETCHNEXTCHUNK
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;

std::optional<llvm::SetVector<Operation *>>
gdn_gpu::nextAddressSlice(gdn::TileLoadOp load, scf::ForOp loop) {
  llvm::SetVector<Operation *> slice;
  bool followsIv = false;
  SmallVector<Value> worklist(load.getIndices());
  if (Value rows = load.getRows())
    worklist.push_back(rows);
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (v == loop.getInductionVar()) {
      followsIv = true;
      continue;
    }
    Region *home = v.getParentRegion();
    if (!loop.getRegion().isAncestor(home))
      continue; // defined above the loop: the same next time
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() || !isPure(def) ||
        def->getNumRegions() != 0)
      return std::nullopt;
    if (slice.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  if (!followsIv)
    return std::nullopt;
  return slice;
}

void gdn_gpu::cloneInBodyOrder(OpBuilder &b, scf::ForOp loop,
                               const llvm::SetVector<Operation *> &ops,
                               IRMapping &mapping) {
  for (Operation &op : *loop.getBody())
    if (ops.contains(&op))
      b.clone(op, mapping);
}

Value gdn_gpu::emitIterationExists(OpBuilder &b, Location loc, scf::ForOp loop,
                                   Value iv) {
  return arith::CmpIOp::create(b, loc,
                               loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                                     : arith::CmpIPredicate::slt,
                               iv, loop.getUpperBound());
}

namespace {
/// Adds the next iteration's prefetches to `loop`, a loop of `kernel`,
/// whose block has `threads` threads.
void prefetchNextChunk(scf::ForOp loop, gpu::GPUFuncOp kernel,
                       int64_t threads) {
  SmallVector<std::pair<gdn::TileLoadOp, llvm::SetVector<Operation *>>> loads;
  for (Operation &op : *loop.getBody()) {
    auto load = dyn_cast<gdn::TileLoadOp>(&op);
    // Only the kernel's own arguments in the default memory space are
    // global memory (not its workgroup / private attributions).
    auto source = load ? dyn_cast<BlockArgument>(load.getSource()) : nullptr;
    if (!source || source.getOwner() != &kernel.getBody().front() ||
        source.getArgNumber() >= kernel.getNumArguments())
      continue;
    auto memref = cast<MemRefType>(source.getType());
    if (memref.getMemorySpace())
      continue;
    // At most a line per thread: a 64 x 128 bf16 chunk tile is 128 lines
    // (a rank-2 tile whose rows are not runs of the contiguous dimension
    // would be a line per element). At K = V = 128 on two warpgroups this
    // leaves out split-seq's combine maps (128 x 128 f32, 512 lines each),
    // loaded a step at a time with little work to hide a prefetch behind:
    // asking for the next step's made the 16-segment shapes 1% to 2%
    // slower on the H200. The cap follows the block, not the kernel: at
    // K = V = 64 the maps (128 lines) are prefetched, and on one warpgroup
    // staged's f32 workspace tiles (256 lines) are not; neither measured.
    gdn_gpu::PrefetchLines lines = gdn_gpu::prefetchLines(
        memref, load.getType().getShape(), load.getDims());
    if (lines.lines > threads)
      continue;
    // A tile the loop carries to the next iteration is already loaded a
    // chunk ahead (split-seq's replay loads chunk c + 1's workspace tiles
    // in chunk c): its latency is hidden, a prefetch would only add work.
    if (llvm::any_of(load->getUsers(), [&](Operation *user) {
          return user == loop.getBody()->getTerminator();
        }))
      continue;
    if (std::optional<llvm::SetVector<Operation *>> slice =
            gdn_gpu::nextAddressSlice(load, loop))
      loads.emplace_back(load, std::move(*slice));
  }
  if (loads.empty())
    return;

  // Past the last iteration there is no next tile (and its rows may not
  // exist): the prefetches run only when one more iteration follows.
  OpBuilder b(loop.getContext());
  b.setInsertionPointToStart(loop.getBody());
  Location loc = loop.getLoc();
  Value next =
      arith::AddIOp::create(b, loc, loop.getInductionVar(), loop.getStep());
  Value more = gdn_gpu::emitIterationExists(b, loc, loop, next);
  auto guard = scf::IfOp::create(b, loc, more, /*withElse=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  IRMapping stepped;
  stepped.map(loop.getInductionVar(), next);
  llvm::SetVector<Operation *> all;
  for (auto &entry : loads)
    all.insert(entry.second.begin(), entry.second.end());
  gdn_gpu::cloneInBodyOrder(b, loop, all, stepped);
  for (auto &[load, slice] : loads) {
    auto lookup = [&](Value v) { return stepped.lookupOrDefault(v); };
    SmallVector<Value> corner = llvm::map_to_vector(load.getIndices(), lookup);
    Value rows = load.getRows() ? lookup(load.getRows()) : Value();
    gdn::TilePrefetchOp::create(b, load.getLoc(), load.getSource(), corner,
                                load.getDims(), load.getType().getShape(),
                                rows);
  }
}

struct PrefetchNextChunkPass
    : public gdn::impl::GDNGPUPrefetchNextChunkBase<PrefetchNextChunkPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp kernel) {
      // The lowering spreads a prefetch over a one-dimensional block.
      std::optional<int64_t> threads = gdn_gpu::flatBlockThreads(kernel);
      // A schedule with prefetch=none marks its kernels gdn.no_prefetch.
      if (!kernel.isKernel() || !threads || kernel->hasAttr(gdn::attrs::kNoPrefetch))
        return;
      SmallVector<scf::ForOp> loops;
      kernel.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        prefetchNextChunk(loop, kernel, *threads);
    });
  }
};
} // namespace
