//===- LaunchPlan.h - the kernels one call runs, in order -------*- C++ -*-===//
//
// A schedule may turn one entry (gdn_pool, gdn_paged) into several kernels
// that pass values through workspaces in global memory. The plan lists the
// kernels in launch order with what their grid's z axis walks, and the
// workspaces to allocate. The compiler derives it from the scheduled
// module; artifacts carry it in their manifest. MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_LAUNCHPLAN_H
#define GDN_RUNTIME_LAUNCHPLAN_H

#include "gdn/Runtime/KernelArgs.h"
#include "gdn/TensorIO/Status.h"

#include <string>
#include <vector>

namespace gdn {

/// What grid axis z (and a workspace's slot axis) walks.
enum class SlotAxis { One, Chunks, Segments };
const char *slotAxisName(SlotAxis axis);
bool parseSlotAxis(const std::string &name, SlotAxis &axis);

struct LaunchStep {
  std::string kernel;
  SlotAxis gridZ = SlotAxis::One;
};

/// A buffer between kernels: [grid x, grid y, slots, tile...] elements.
struct WorkspaceSpec {
  DType dtype = DType::F32;
  std::vector<int64_t> tile; // empty: one scalar per slot
  SlotAxis slots = SlotAxis::Chunks;
};

struct LaunchPlan {
  std::string schedule = "fused";
  int64_t segmentChunks = 1;
  std::vector<LaunchStep> steps;
  std::vector<WorkspaceSpec> workspaces;

  /// The plan of an unscheduled entry: the entry itself, once.
  static LaunchPlan single(const std::string &entry);
};

/// One launch of a call: the kernel and its grid.
struct PlannedLaunch {
  std::string kernel;
  Grid grid;
};

/// Grids and workspace shapes for a call whose programs form `base`
/// ([HV, B, 1]) and whose longest program has at most `chunkSlots` chunks.
/// Workspaces come back as KernelArg::Kind::Workspace (no data: the backend
/// allocates and poisons them), in the order the kernels take them.
Status planCall(const LaunchPlan &plan, Grid base, int64_t chunkSlots,
                std::vector<PlannedLaunch> &launches,
                std::vector<KernelArg> &workspaces);

} // namespace gdn

#endif // GDN_RUNTIME_LAUNCHPLAN_H
