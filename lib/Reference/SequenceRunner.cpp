//===- SequenceRunner.cpp - Chunk boundaries, state reads and writes ------===//
#include "Algorithms.h"

#include <algorithm>

namespace gdn {

void runSequence(const PreparedInputs &in, Algorithm algorithm,
                 int64_t chunkSize, const SequenceSchedule &schedule,
                 std::vector<double> &statePool, std::vector<double> &o) {
  if (schedule.numTokens == 0)
    return; // a zero-length sequence reads and writes nothing
  const int64_t K = in.dims.K, V = in.dims.V, HV = in.dims.HV();
  const int64_t headElements = V * K;

  // Segment ends: every chunk boundary (aligned to the chunk phase) and
  // every write point. The recurrence is indifferent to them; the WY form
  // runs one chunk per segment.
  std::vector<int64_t> cuts;
  for (int64_t end = chunkSize - schedule.chunkPhase % chunkSize;
       end < schedule.numTokens; end += chunkSize)
    cuts.push_back(end);
  for (const SequenceSchedule::Write &w : schedule.writes)
    cuts.push_back(w.afterTokens);
  cuts.push_back(schedule.numTokens);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  std::vector<double> state(headElements);
  for (int64_t hv = 0; hv < HV; ++hv) {
    if (schedule.initialRow >= 0)
      std::copy_n(&statePool[(schedule.initialRow * HV + hv) * headElements],
                  headElements, state.begin());
    else
      std::fill(state.begin(), state.end(), 0.0);
    size_t nextWrite = 0;
    int64_t segmentBegin = 0;
    for (int64_t segmentEnd : cuts) {
      const int64_t b = schedule.tokenBegin + segmentBegin;
      const int64_t e = schedule.tokenBegin + segmentEnd;
      if (algorithm == Algorithm::Recurrent)
        advanceRecurrent(in, hv, b, e, state.data(), o.data());
      else
        advanceChunkWY(in, hv, b, e, state.data(), o.data());
      segmentBegin = segmentEnd;
      for (; nextWrite < schedule.writes.size() &&
             schedule.writes[nextWrite].afterTokens == segmentEnd;
           ++nextWrite)
        std::copy(state.begin(), state.end(),
                  &statePool[(schedule.writes[nextWrite].row * HV + hv) *
                             headElements]);
    }
  }
}

} // namespace gdn
