//===- FusedSchedule.cpp - one kernel, the scan as a loop -----------------===//
//
// The shortest kind, and the model for a new one: one kernel per program
// (value head, sequence); each chunk is prepared, stepped and emitted in
// turn with the state carried in the loop, so nothing crosses global memory
// but the kernel's inputs and outputs.
//
//===----------------------------------------------------------------------===//

#include "ScanLowering.h"
#include "ScheduleKinds.h"

using namespace mlir;
using namespace mlir::gdn::schedule;

LogicalResult mlir::gdn::schedule::lowerFused(ScanLowering &lowering) {
  return lowering.addKernel("", GridZ::One, [](KernelBody &k) -> FailureOr<Value> {
    SmallVector<Value> final = k.forLoop(
        k.lower(), k.upper(), k.init(), [&](Value c, ValueRange iters) {
          Value m = iters[0];
          SmallVector<Value> prepared = k.prepare(c);
          SmallVector<Value> next = k.step(c, prepared, m);
          k.emit(c, prepared, m, ArrayRef<Value>(next).drop_front());
          return SmallVector<Value>{next[0]};
        });
    return final[0];
  });
}
