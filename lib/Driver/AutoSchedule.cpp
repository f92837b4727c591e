//===- AutoSchedule.cpp - the rule behind --schedule auto -----------------===//

#include "gdn/Driver/AutoSchedule.h"

#include <algorithm>

using namespace gdn;
using namespace gdn::run;

Workload run::workloadOf(const Problem &p) {
  Workload w;
  w.V = p.dims.V;
  if (p.shapesOnly) {
    // Contents unknown here: every sequence may be the longest.
    w.longestTokens = p.dims.T;
    w.programs = p.batch() * p.dims.HV();
    return w;
  }
  std::vector<int64_t> cu = p.tensors.at("cu_seqlens").toIndices();
  int64_t sequences = 0;
  for (size_t b = 0; b + 1 < cu.size(); ++b) {
    int64_t n = cu[b + 1] - cu[b];
    sequences += n > 0;
    w.longestTokens = std::max(w.longestTokens, n);
  }
  w.programs = sequences * p.dims.HV();
  return w;
}

const std::vector<AutoCandidate> &run::autoCandidates() {
  static const std::vector<AutoCandidate> candidates = {
      {"fused", "fused"},
      {"fused-v-block-64", "fused v-block=64"},
      {"split-seq", "split-seq"},
  };
  return candidates;
}

static bool splitsV(int64_t V) { return V > 64 && V % 64 == 0; }

bool run::candidateApplies(const AutoCandidate &c, int64_t V) {
  return std::string(c.name) != "fused-v-block-64" || splitsV(V);
}

static const AutoCandidate *candidate(const char *name) {
  for (const AutoCandidate &c : autoCandidates())
    if (std::string(c.name) == name)
      return &c;
  return nullptr;
}

ScheduleChoice run::chooseSchedule(const Workload &w, int64_t sms) {
  // split-seq's segments are 16 chunks: with two or more per sequence it
  // multiplies the programs; below that it only adds kernels.
  constexpr int64_t kSegmentTokens = 16 * 64;
  const std::string numbers =
      std::to_string(w.programs) + " programs (value heads x sequences), " +
      std::to_string(sms) + " SMs, longest sequence " +
      std::to_string(w.longestTokens) + " tokens, V=" + std::to_string(w.V);
  ScheduleChoice c;
  if (w.programs == 0) {
    c.pick = candidate("fused");
    c.why = numbers + ": no new tokens, nothing to spread";
  } else if (w.programs >= sms) {
    c.pick = candidate("fused");
    c.why = numbers + ": the programs fill the SMs";
  } else if (w.programs * 4 <= sms && w.longestTokens >= 2 * kSegmentTokens) {
    c.pick = candidate("split-seq");
    c.why = numbers + ": few programs and long sequences, split into segments";
  } else if (!splitsV(w.V)) {
    c.pick = candidate("fused");
    c.why = numbers + ": no V-split below V=128";
  } else if (w.programs * (w.V / 64) <= sms) {
    c.pick = candidate("fused-v-block-64");
    c.why = numbers + ": the V-split still fits in one wave";
  } else {
    c.pick = candidate("fused");
    c.why = numbers + ": a V-split would not fit in one wave";
  }
  return c;
}
