//===- ScheduleKinds.h - the lowerings a schedule can name ------*- C++ -*-===//
//
// A schedule kind is one C++ function that turns an entry's gdn.chunk_scan
// into kernels with the ScanLowering helpers. Adding a kind: write the
// function (see FusedSchedule.cpp, the shortest), add one line to the table
// in ScheduleKinds.cpp and its name to scheduleKinds() in
// lib/Schedule/ScheduleSpec.cpp (the parser's list). docs/Schedules.md
// walks through it.
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

/// The lowering of the schedule kind `name`; null for a name without one.
LowerFn lowerFnFor(const std::string &name);

llvm::LogicalResult lowerFused(ScanLowering &lowering);
llvm::LogicalResult lowerStaged(ScanLowering &lowering);
llvm::LogicalResult lowerSplitSeq(ScanLowering &lowering);

} // namespace mlir::gdn::schedule

#endif
