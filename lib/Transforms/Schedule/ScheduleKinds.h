//===- ScheduleKinds.h - the lowerings a schedule can name ------*- C++ -*-===//
//
// A schedule kind is one C++ function that turns an entry's gdn.chunk_scan
// into kernels with the ScanLowering helpers. Adding a kind: write the
// function (see FusedSchedule.cpp, the shortest) and add one line to the
// table in ScheduleKinds.cpp. docs/Schedules.md walks through it.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TRANSFORMS_SCHEDULE_SCHEDULEKINDS_H
#define GDN_TRANSFORMS_SCHEDULE_SCHEDULEKINDS_H

#include <string>

namespace llvm {
struct LogicalResult;
}

namespace mlir::gdn::schedule {

class ScanLowering;
using LowerFn = llvm::LogicalResult (*)(ScanLowering &);

struct Kind {
  const char *name;
  const char *summary;
  LowerFn lower;
};

const Kind *findKind(const std::string &name);
/// "fused, staged, split-seq".
std::string kindList();

llvm::LogicalResult lowerFused(ScanLowering &lowering);
llvm::LogicalResult lowerStaged(ScanLowering &lowering);
llvm::LogicalResult lowerSplitSeq(ScanLowering &lowering);

} // namespace mlir::gdn::schedule

#endif
