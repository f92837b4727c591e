//===- LaunchPlan.cpp - grids and workspaces of a scheduled call ----------===//

#include "gdn/Runtime/LaunchPlan.h"
#include "gdn/Runtime/Segments.h"

#include <algorithm>

using namespace gdn;

const char *gdn::slotAxisName(SlotAxis axis) {
  switch (axis) {
  case SlotAxis::One: return "one";
  case SlotAxis::Chunks: return "chunks";
  case SlotAxis::Segments: return "segments";
  case SlotAxis::CallChunks: return "call-chunks";
  }
  return "?";
}

bool gdn::parseSlotAxis(const std::string &name, SlotAxis &axis) {
  for (SlotAxis a : {SlotAxis::One, SlotAxis::Chunks, SlotAxis::Segments,
                     SlotAxis::CallChunks})
    if (name == slotAxisName(a)) {
      axis = a;
      return true;
    }
  return false;
}

ChunkSlots gdn::chunkSlotsFor(int64_t longestTokens, int64_t tokens,
                              int64_t sequences, int64_t chunk) {
  auto chunks = [&](int64_t n) { return (std::max<int64_t>(n, 0) + chunk - 1) / chunk; };
  return {chunks(longestTokens) + 1,
          chunks(tokens) + 2 * std::max<int64_t>(sequences, 0) + 1};
}

LaunchPlan LaunchPlan::single(const std::string &entry) {
  LaunchPlan plan;
  plan.steps.push_back({entry, SlotAxis::One});
  return plan;
}

bool LaunchPlan::hasPerHead() const {
  return std::any_of(steps.begin(), steps.end(),
                     [](const LaunchStep &s) { return s.perHead; }) ||
         std::any_of(workspaces.begin(), workspaces.end(),
                     [](const WorkspaceSpec &w) { return w.perHead; });
}

bool LaunchPlan::hasCallChunks() const {
  return std::any_of(workspaces.begin(), workspaces.end(),
                     [](const WorkspaceSpec &w) {
                       return w.slots == SlotAxis::CallChunks;
                     });
}

/// A scalar argument's value as the integer a bound flag compares with.
static bool scalarValue(const KernelArg &a, int64_t &value) {
  if (a.kind == KernelArg::Kind::Index)
    value = a.index;
  else if (a.kind == KernelArg::Kind::I1)
    value = a.i1;
  else
    return false;
  return true;
}

std::string gdn::pickEntry(const std::map<std::string, LaunchPlan> &plans,
                           const std::string &entry,
                           const std::vector<KernelArg> &args) {
  for (const auto &[name, plan] : plans) {
    if (plan.specializedFrom != entry || plan.boundArgs.empty())
      continue;
    bool matches = true;
    for (size_t i = 0; matches && i + 1 < plan.boundArgs.size(); i += 2) {
      int64_t index = plan.boundArgs[i], value = 0;
      matches = index >= 0 && index < int64_t(args.size()) &&
                scalarValue(args[index], value) &&
                value == plan.boundArgs[i + 1];
    }
    if (matches)
      return name;
  }
  return entry;
}

std::string gdn::describeBoundArgs(const LaunchPlan &plan,
                                   const std::vector<KernelArg> &args) {
  std::string out;
  for (size_t i = 0; i + 1 < plan.boundArgs.size(); i += 2) {
    int64_t index = plan.boundArgs[i];
    std::string name = index >= 0 && index < int64_t(args.size())
                           ? args[index].name
                           : "argument " + std::to_string(index);
    out += (out.empty() ? "" : " ") + name + "=" +
           std::to_string(plan.boundArgs[i + 1]);
  }
  return out;
}

Status gdn::planCall(const LaunchPlan &plan, Grid base, ChunkSlots slots,
                     std::vector<PlannedLaunch> &launches,
                     std::vector<KernelArg> &workspaces) {
  if (plan.steps.empty())
    return Status::error("the launch plan has no kernels");
  if (plan.segmentChunks < 1)
    return Status::error("the launch plan's segment size is not positive");
  if (plan.programsPerHead < 1)
    return Status::error("the launch plan's programs per head are not "
                         "positive");
  // A V-split kernel runs V / v_block programs per value head; a kernel
  // or workspace per head, one.
  const int64_t heads = base.x;
  base.x *= plan.programsPerHead;
  const int64_t chunkSlots = std::max<int64_t>(slots.longest, 1);
  // The slot past ceil(tokens / 64) holds at most a paged call's chunk that
  // starts before its first new token. Where the kernels give a program's
  // chunk past a multiple of the segment length to segment 0
  // (SplitSeqSchedule.cpp), segments cover the other slots: a segment for
  // that one chunk would run in a second wave. (One-chunk segments have no
  // such chunk: every chunk count is a multiple of 1.)
  const int64_t segmentSlots =
      plan.extraChunkInSegmentZero && plan.segmentChunks > 1 ? chunkSlots - 1
                                                             : chunkSlots;
  if (plan.firstSegmentChunks < 0)
    return Status::error("the launch plan's first segment size is negative");
  if (plan.firstSegmentChunks && plan.extraChunkInSegmentZero)
    return Status::error("the launch plan gives segment 0 its own length and "
                         "the extra chunk: a plan has one or the other");
  // A first segment of its own length (split-seq first-segment-chunks=N),
  // then segments of segmentChunks.
  const int64_t segments = segmentCount(segmentSlots, plan.segmentChunks,
                                        plan.firstSegmentChunks);
  auto extent = [&](SlotAxis axis) {
    return axis == SlotAxis::One          ? int64_t(1)
           : axis == SlotAxis::Chunks     ? chunkSlots
           : axis == SlotAxis::CallChunks ? std::max<int64_t>(slots.call, 1)
                                          : segments;
  };
  launches.clear();
  for (const LaunchStep &step : plan.steps) {
    if (step.gridZ == SlotAxis::CallChunks)
      return Status::error("kernel " + step.kernel +
                           ": grid z cannot walk the call's chunks");
    Grid g = base;
    if (step.perHead)
      g.x = heads;
    g.z = extent(step.gridZ);
    if (g.z > 65535)
      return Status::error("kernel " + step.kernel + " needs " +
                           std::to_string(g.z) +
                           " blocks along grid z, more than 65535");
    launches.push_back({step.kernel, g});
  }
  workspaces.clear();
  for (size_t i = 0; i < plan.workspaces.size(); ++i) {
    const WorkspaceSpec &w = plan.workspaces[i];
    std::vector<int64_t> shape{w.perHead ? heads : base.x,
                               w.slots == SlotAxis::CallChunks ? 1 : base.y,
                               extent(w.slots)};
    shape.insert(shape.end(), w.tile.begin(), w.tile.end());
    workspaces.push_back(KernelArg::workspace(
        "workspace " + std::to_string(i) + " (" + slotAxisName(w.slots) +
            (w.perHead ? ", per head" : "") + ")",
        w.dtype, shape));
  }
  return Status::success();
}
