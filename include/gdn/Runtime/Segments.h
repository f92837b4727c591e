//===- Segments.h - how many split-seq segments a program has ----*- C++ -*-===//
//
// One count for planCall (the grid it launches) and --schedule auto (which
// candidate's segments fill the blocks a program has), so the two cannot
// drift apart. Header-only and dependency-free: the auto rule lives in
// GDNDriver, which does not link the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_SEGMENTS_H
#define GDN_RUNTIME_SEGMENTS_H

#include <algorithm>
#include <cstdint>

namespace gdn {

/// Segments over `slots` chunk slots of segments of `segmentChunks`, with
/// segment 0 of `firstSegmentChunks` when that is non-zero (split-seq
/// first-segment-chunks=N). At least one.
inline int64_t segmentCount(int64_t slots, int64_t segmentChunks,
                            int64_t firstSegmentChunks = 0) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  if (firstSegmentChunks)
    return 1 + ceilDiv(std::max<int64_t>(slots - firstSegmentChunks, 0),
                       segmentChunks);
  return std::max<int64_t>(ceilDiv(slots, segmentChunks), 1);
}

} // namespace gdn

#endif // GDN_RUNTIME_SEGMENTS_H
