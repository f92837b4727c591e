//===- ScheduleKinds.cpp - the table of schedule kinds --------------------===//

#include "ScheduleKinds.h"

#include "mlir/Support/LLVM.h"

using namespace mlir::gdn::schedule;

namespace {
struct Lowering {
  const char *kind;
  LowerFn lower;
};
// One line per kind of mlir::gdn::scheduleKinds().
const Lowering kLowerings[] = {
    {"fused", lowerFused},
    {"staged", lowerStaged},
    {"split-seq", lowerSplitSeq},
};
} // namespace

LowerFn mlir::gdn::schedule::lowerFnFor(const std::string &name) {
  for (const Lowering &l : kLowerings)
    if (name == l.kind)
      return l.lower;
  return nullptr;
}
