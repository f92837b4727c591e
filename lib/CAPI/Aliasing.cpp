//===- Aliasing.cpp - Refuse inputs that share memory with outputs --------===//
#include "Aliasing.h"

#include <cstdio>

using namespace gdn;
using namespace gdn::capi;

namespace {

/// The bytes [begin, end) a view's elements lie in (strides are
/// non-negative, viewTensor checks that); empty for an empty tensor.
struct ByteRange {
  unsigned __int128 begin = 0, end = 0;
  bool empty() const { return begin == end; }
  bool overlaps(const ByteRange &o) const {
    return !empty() && !o.empty() && begin < o.end && o.begin < end;
  }
};

ByteRange rangeOf(const TensorView &v) {
  if (v.numel() == 0)
    return {};
  // 128-bit arithmetic: strides given by a caller may be anything.
  unsigned __int128 last = 0;
  for (size_t d = 0; d < v.shape.size(); ++d)
    last += static_cast<unsigned __int128>(v.shape[d] - 1) *
            static_cast<unsigned __int128>(v.strides[d]);
  ByteRange r;
  r.begin = reinterpret_cast<uintptr_t>(v.data);
  r.end = r.begin + (last + 1) * elementSize(v.dtype);
  return r;
}

bool sameMemory(const TensorView &a, const TensorView &b) {
  return a.onHost == b.onHost && (a.onHost || a.deviceId == b.deviceId);
}

std::string hex(unsigned __int128 v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx",
                static_cast<unsigned long long>(v));
  return buffer;
}

std::string describeRange(const TensorView &v) {
  ByteRange r = rangeOf(v);
  return "'" + v.name + "' " + v.describe() + " (bytes " + hex(r.begin) +
         " to " + hex(r.end) + ")";
}

} // namespace

Status capi::checkNoAliasing(const std::map<std::string, TensorView> &views) {
  for (const char *written : {"o", "state_pool"}) {
    auto w = views.find(written);
    if (w == views.end())
      continue;
    const ByteRange writtenRange = rangeOf(w->second);
    for (const auto &[name, view] : views) {
      if (name == written || !sameMemory(view, w->second))
        continue;
      // o against state_pool is reported once, as o's.
      if (name == "o" && std::string(written) == "state_pool")
        continue;
      if (rangeOf(view).overlaps(writtenRange))
        return Status::error(
            "tensor " + describeRange(view) + " overlaps " +
            describeRange(w->second) +
            ", which the call writes; inputs must not share memory with the "
            "output o or the state pool");
    }
  }
  return Status::success();
}
