//===- ScheduleKinds.cpp - the table of schedule kinds --------------------===//

#include "ScheduleKinds.h"

#include "mlir/Support/LLVM.h"

using namespace mlir::gdn::schedule;

namespace {
// One line per kind. A new kind: its lowering function and a line here.
const Kind kKinds[] = {
    {"fused", "one kernel, the scan as a loop", lowerFused},
    {"staged", "prepare / state / output kernels, values in global memory",
     lowerStaged},
    {"split-seq", "segments in parallel, combined through (a, B, R)",
     lowerSplitSeq},
};
} // namespace

const Kind *mlir::gdn::schedule::findKind(const std::string &name) {
  for (const Kind &k : kKinds)
    if (name == k.name)
      return &k;
  return nullptr;
}

std::string mlir::gdn::schedule::kindList() {
  std::string s;
  for (const Kind &k : kKinds)
    s += std::string(s.empty() ? "" : ", ") + k.name;
  return s;
}
