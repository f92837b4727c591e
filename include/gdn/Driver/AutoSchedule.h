//===- AutoSchedule.h - --schedule auto: a schedule per call ----*- C++ -*-===//
//
// `--schedule auto` picks a concrete schedule from what fills the GPU: the
// number of programs (value heads x sequences with new tokens), the longest
// sequence, V and the device's SM count. The rule and the measurements
// behind it are in docs/Schedules.md. MLIR-free: the runtime-only gdn-run
// uses it to pick among artifacts built for every candidate.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DRIVER_AUTOSCHEDULE_H
#define GDN_DRIVER_AUTOSCHEDULE_H

#include "gdn/Driver/Problem.h"
#include "gdn/Schedule/Schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gdn::run {

/// The schedule name that asks for the rule below.
inline constexpr const char *kAutoSchedule = "auto";

/// What the rule looks at.
struct Workload {
  int64_t programs = 0;      // value heads x sequences with new tokens
  int64_t longestTokens = 0; // new tokens of the longest sequence (the
                             // mean where the lengths are not read)
  int64_t V = 128;           // value head size
  int64_t K = 128;           // key head size
  // Chunk slots a workspace per value head has for each head, as the
  // launch sizes them (ChunkSlots::call: the call's chunks, ceil(T / 64) +
  // 2 B + 1); 0: not known.
  int64_t slotsPerHead = 0;
  int64_t valueHeads = 0;    // HV
};
Workload workloadOf(const Problem &problem);

/// A schedule the rule can pick: its text and a directory-safe name (an
/// auto artifact set holds one artifact per candidate under that name).
struct AutoCandidate {
  const char *name;
  const char *schedule;
  int64_t segmentChunks = 0; // split-seq's segment length; 0: not split-seq
  // split-seq first-segment=run: segment 0's length; 0: segment 0 maps.
  int64_t firstSegmentChunks = 0;
  // 1: the one-warpgroup twin of a candidate (`<name>-wg1`, its schedule
  // with warpgroups=1), for key and value heads of at most 64; 0: the code
  // generator's warpgroups.
  int64_t warpgroups = 0;
};
const std::vector<AutoCandidate> &autoCandidates();
/// `c`'s schedule, parsed (once per process).
const mlir::gdn::ScheduleOptions &candidateSchedule(const AutoCandidate &c);
/// Whether the rule can pick `c` for head sizes K and V (a V-split needs a
/// V of at least two 64-row blocks; K above 128 has candidates of its own;
/// one-warpgroup twins are for K and V of at most 64):
/// an auto set holds those only.
bool candidateApplies(const AutoCandidate &c, int64_t K, int64_t V);

struct ScheduleChoice {
  const AutoCandidate *pick = nullptr;
  std::string why; // one line: the numbers and the branch of the rule
};

/// The rule, for a device with `sms` multiprocessors (132 on an H200; the
/// CPU backend uses that too, so the CPU tests follow the GPU's choices).
ScheduleChoice chooseSchedule(const Workload &work, int64_t sms);

/// The SM count auto assumes where there is no GPU to ask.
inline constexpr int64_t kNominalSMs = 132;

/// What a caller asked for, parsed once: auto, or a concrete schedule.
struct ScheduleRequest {
  bool isAuto = false;
  mlir::gdn::ScheduleOptions concrete; // when not auto
  /// "auto", a built-in name, a schedule file or a schedule text; false
  /// with `error` naming the problem.
  static bool parse(const std::string &spec, ScheduleRequest &out,
                    std::string &error);
  static ScheduleRequest automatic();
};

/// The schedule a call runs: the request's, or auto's pick for the call.
struct ResolvedSchedule {
  mlir::gdn::ScheduleOptions schedule;
  const AutoCandidate *pick = nullptr; // auto's pick; null when not auto
  /// "schedule: auto -> <text> (<why>)" for a pick; empty otherwise.
  std::string line;
};

/// The one place auto is resolved: the request itself, or the rule's pick
/// for `problem` on a device of `sms` SMs (0: no GPU asked; an H200's
/// kNominalSMs are assumed and the line says so).
ResolvedSchedule resolveSchedule(const ScheduleRequest &request,
                                 const Problem &problem, int64_t sms);

/// Binds the call's chunk size (`problem.flags.chunkSize`, 0 when the call
/// names none) to the one it runs with: the call's, else the requested
/// schedule's `chunk=`, else 64. Refuses a call and a schedule that name
/// different sizes, and a paged call whose page_size the chunk does not
/// divide (SPEC.md), naming both. Call it after validateProblem and before
/// resolveSchedule, which gives the schedule it resolves that chunk.
Status bindChunkSize(Problem &problem, const ScheduleRequest &request);

} // namespace gdn::run

#endif // GDN_DRIVER_AUTOSCHEDULE_H
