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

#include <optional>

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNSCHEDULE
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn;

namespace {
/// gdn.program_rows as the arithmetic it names: blocks = ceil(rows /
/// block), head = program / blocks, first row = (program mod blocks) *
/// block. The schedule has read what it needed from the op by now.
void expandProgramRows(ModuleOp module) {
  SmallVector<ProgramRowsOp> ops;
  module.walk([&](ProgramRowsOp op) { ops.push_back(op); });
  for (ProgramRowsOp op : ops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value blocks =
        arith::CeilDivUIOp::create(b, loc, op.getRows(), op.getBlock());
    Value head = arith::DivUIOp::create(b, loc, op.getProgram(), blocks);
    Value blk = arith::RemUIOp::create(b, loc, op.getProgram(), blocks);
    Value first = arith::MulIOp::create(b, loc, blk, op.getBlock());
    op.getHead().replaceAllUsesWith(head);
    op.getFirstRow().replaceAllUsesWith(first);
    op.erase();
  }
}

struct SchedulePass : public gdn::impl::GDNScheduleBase<SchedulePass> {
  using GDNScheduleBase::GDNScheduleBase;
  /// A schedule its caller parsed already (the compiler): the string
  /// option is not read.
  explicit SchedulePass(const ScheduleOptions &parsed) : parsed(parsed) {}

  std::optional<ScheduleOptions> parsed;

  /// The schedule to build: the caller's, else the string option (gdn-opt)
  /// parsed here.
  LogicalResult scheduleToBuild(ScheduleOptions &options) {
    if (parsed) {
      options = *parsed;
      return success();
    }
    std::string spec = schedule;
    if (spec.empty())
      spec = defaultSchedule().empty() ? "fused" : defaultSchedule();
    std::string error;
    if (!parseSchedule(spec, options, error))
      return getOperation().emitError() << error;
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    ScheduleOptions options;
    if (failed(scheduleToBuild(options)))
      return signalPassFailure();
    schedule::LowerFn lower = schedule::lowerFnFor(options.kind);
    if (!lower) {
      module.emitError() << "schedule kind '" << options.kind
                         << "' has no lowering in this build";
      return signalPassFailure();
    }

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
               "v-block, a kernel given to gdn-opt must bind them itself: "
               "`gdn-run --emit tile --schedule '"
            << options.str() << "' -o FILE` writes it so bound";
        return signalPassFailure();
      }
      work.push_back({func, scans[0]});
    }
    for (auto [func, scan] : work) {
      schedule::ScanLowering lowering(func, scan, options);
      if (failed(lower(lowering)))
        return signalPassFailure();
      lowering.finish();
    }
    expandProgramRows(module);
  }
};
} // namespace

std::unique_ptr<Pass>
mlir::gdn::createGDNSchedule(const ScheduleOptions &parsed) {
  return std::make_unique<SchedulePass>(parsed);
}
