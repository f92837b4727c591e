//===- SchedulePass.cpp - gdn-schedule ------------------------------------===//

#include "ScanLowering.h"
#include "ScheduleKinds.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNSCHEDULE
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn;

namespace {
struct SchedulePass : public gdn::impl::GDNScheduleBase<SchedulePass> {
  using GDNScheduleBase::GDNScheduleBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string spec = schedule;
    if (spec.empty())
      spec = defaultSchedule().empty() ? "fused" : defaultSchedule();
    ScheduleOptions options;
    std::string error;
    if (!parseSchedule(spec, options, error)) {
      module.emitError() << error;
      return signalPassFailure();
    }
    const schedule::Kind *kind = schedule::findKind(options.kind);

    SmallVector<std::pair<func::FuncOp, ChunkScanOp>> work;
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<ChunkScanOp> scans;
      func.walk([&](ChunkScanOp op) { scans.push_back(op); });
      if (scans.empty())
        continue;
      if (scans.size() > 1) {
        scans[1].emitOpError()
            << "is the second gdn.chunk_scan in @" << func.getSymName()
            << "; a kernel has at most one";
        return signalPassFailure();
      }
      if (!func.isPublic()) {
        scans[0].emitOpError()
            << "is in private function @" << func.getSymName()
            << "; a scan belongs in a kernel (a public function)";
        return signalPassFailure();
      }
      if (scans[0]->getParentOfType<ChunkScanOp>() ||
          scans[0]->getParentOfType<LoopLikeOpInterface>()) {
        scans[0].emitOpError() << "is inside a loop; a schedule places the "
                                  "scan's kernels once per program";
        return signalPassFailure();
      }
      // A V-split is made when the kernel is specialised (its V tiles are
      // bound to the block); the schedule only checks that they were.
      auto state = cast<RankedTensorType>(scans[0].getInit().getType());
      if (options.vBlock && state.getDimSize(0) != options.vBlock) {
        scans[0].emitOpError()
            << "carries a state of " << state.getDimSize(0)
            << " rows but the schedule asks for v-block=" << options.vBlock
            << "; gdn-run specialises the kernel's V tiles to the schedule's "
               "v-block, a kernel given to gdn-opt must bind them itself";
        return signalPassFailure();
      }
      work.push_back({func, scans[0]});
    }
    for (auto [func, scan] : work) {
      schedule::ScanLowering lowering(func, scan, options);
      if (failed(kind->lower(lowering)))
        return signalPassFailure();
      lowering.finish();
    }
  }
};
} // namespace
