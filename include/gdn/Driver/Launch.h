//===- Launch.h - kernel arguments for a validated problem ------*- C++ -*-===//

#ifndef GDN_DRIVER_LAUNCH_H
#define GDN_DRIVER_LAUNCH_H

#include "gdn/Driver/Problem.h"

#include "gdn/Runtime/KernelArgs.h"
#include "gdn/Runtime/LaunchPlan.h"

#include <deque>

namespace gdn::run {

/// Everything one launch needs. Gates are widened to f32 and index arrays to
/// i64 in `owned`; q / k / v are passed as stored; `state_pool` and `o` are
/// the caller's buffers (updated in place).
struct PreparedCall {
  std::string entry; // gdn_pool or gdn_paged
  Grid grid;         // [HV, B, 1]: one program per (value head, sequence)
  ChunkSlots chunkSlots; // of a program and of the call (shape.chunk tokens)
  KernelShape shape;
  std::vector<KernelArg> args;
  std::deque<HostTensor> owned;
};

Status prepareCall(Problem &problem, HostTensor &o, PreparedCall &call);

/// The kernel shape a problem needs (K, V, dtype of q).
KernelShape shapeOf(const Problem &problem);

} // namespace gdn::run

#endif // GDN_DRIVER_LAUNCH_H
