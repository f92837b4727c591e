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

#include <map>
#include <string>
#include <vector>

namespace gdn {

/// What grid axis z (and a workspace's slot axis) walks. `CallChunks`
/// (workspaces only) numbers the chunks of every sequence of the call on one
/// axis (gdn.chunk_scan's `slots from`), grid y then of extent 1.
enum class SlotAxis { One, Chunks, Segments, CallChunks };
const char *slotAxisName(SlotAxis axis);
bool parseSlotAxis(const std::string &name, SlotAxis &axis);

struct LaunchStep {
  std::string kernel;
  SlotAxis gridZ = SlotAxis::One;
  /// Grid x is the value heads, not the programs of the plan's V-split
  /// (staged prepare-per=head's prepare kernel).
  bool perHead = false;
};

/// A buffer between kernels: [grid x, grid y, slots, tile...] elements;
/// [value heads, grid y, slots, tile...] for one per head, which the
/// programs of a V-split head share.
struct WorkspaceSpec {
  DType dtype = DType::F32;
  std::vector<int64_t> tile; // empty: one scalar per slot
  SlotAxis slots = SlotAxis::Chunks;
  bool perHead = false;
};

struct LaunchPlan {
  std::string schedule = "fused";
  int64_t segmentChunks = 1;
  /// The kernels give a program's chunk past a multiple of segmentChunks
  /// to segment 0 (split-seq does), so planCall
  /// launches a segment fewer when the last chunk slot would start one.
  /// Artifacts from before say nothing and get a segment for it.
  bool extraChunkInSegmentZero = false;
  /// Segment 0's chunks where they differ from segmentChunks (split-seq
  /// first-segment=run first-segment-chunks=N); 0: the same.
  int64_t firstSegmentChunks = 0;
  /// Programs per value head on grid x: V / v_block for a V-split kernel
  /// (the schedule's v-block), else 1. planCall multiplies the call's
  /// programs by it; no launcher does.
  int64_t programsPerHead = 1;
  std::vector<LaunchStep> steps;
  std::vector<WorkspaceSpec> workspaces;
  /// A flag-bound copy of an entry (gdn-specialize-entries): the entry it
  /// was copied from, and (argument index, value) pairs flattened.
  std::string specializedFrom;
  std::vector<int64_t> boundArgs;

  /// Whether a kernel or a workspace of the plan is per value head.
  bool hasPerHead() const;
  /// Whether a workspace of the plan spans the call's chunk slots.
  bool hasCallChunks() const;

  /// The plan of an unscheduled entry: the entry itself, once.
  static LaunchPlan single(const std::string &entry);
};

/// The entry a call of `entry` with `args` runs: a flag-bound copy of it
/// whose bound arguments all equal the call's (the first such, by name),
/// else `entry` itself.
std::string pickEntry(const std::map<std::string, LaunchPlan> &plans,
                      const std::string &entry,
                      const std::vector<KernelArg> &args);

/// "gate_domain=0 beta_is_logit=1" for a plan's bound arguments, named
/// from `args`; empty for an unspecialised plan.
std::string describeBoundArgs(const LaunchPlan &plan,
                              const std::vector<KernelArg> &args);

/// How many chunk slots a call's kernels walk and its workspaces hold:
/// `longest` for one program (grid z of a chunk-parallel kernel, a
/// per-sequence workspace), `call` for a workspace over the call's chunks.
struct ChunkSlots {
  int64_t longest = 1;
  int64_t call = 1;
};
/// A call of `sequences` sequences, `tokens` new tokens in all and at most
/// `longestTokens` in one, in chunks of `chunk` tokens. A paged sequence's
/// chunks are aligned to absolute positions, so one more may start before
/// its first new token: ceil(n / C) + 1 slots for n tokens, and
/// ceil(T / C) + 2 B + 1 for the call (gdn_chunked.mlir's `slots from`).
ChunkSlots chunkSlotsFor(int64_t longestTokens, int64_t tokens,
                         int64_t sequences, int64_t chunk);

/// One launch of a call: the kernel and its grid.
struct PlannedLaunch {
  std::string kernel;
  Grid grid;
};

/// Grids and workspace shapes for a call whose programs form `base`
/// ([HV, B, 1]; the plan's V-split multiplies x), with `slots` chunk slots.
/// Workspaces come back as KernelArg::Kind::Workspace (no data: the backend
/// allocates and poisons them), in the order the kernels take them.
Status planCall(const LaunchPlan &plan, Grid base, ChunkSlots slots,
                std::vector<PlannedLaunch> &launches,
                std::vector<KernelArg> &workspaces);

} // namespace gdn

#endif // GDN_RUNTIME_LAUNCHPLAN_H
