//===- Metrics.h - Error metrics against the float64 reference --*- C++ -*-===//
#ifndef GDN_REFERENCE_METRICS_H
#define GDN_REFERENCE_METRICS_H

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace gdn {

/// ||out - ref|| / ||ref|| (L2). NaN in `out` or `ref` gives NaN and any
/// other non-finite `out` value gives +inf, so `err <= tol` fails for them
/// (NaN never passes). A zero reference gives 0 if `out` is zero too, else
/// +inf.
template <typename Out, typename Ref>
double relativeL2Error(const Out *out, const Ref *ref, size_t n) {
  double diff = 0, norm = 0;
  bool infinite = false;
  for (size_t i = 0; i < n; ++i) {
    const double o = static_cast<double>(out[i]);
    const double r = static_cast<double>(ref[i]);
    if (std::isnan(o) || std::isnan(r))
      return std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(o))
      infinite = true;
    diff += (o - r) * (o - r);
    norm += r * r;
  }
  if (infinite)
    return std::numeric_limits<double>::infinity();
  if (norm == 0)
    return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff) / std::sqrt(norm);
}

/// Vectors of different sizes never match (+inf).
template <typename Out, typename Ref>
double relativeL2Error(const std::vector<Out> &out, const std::vector<Ref> &ref) {
  if (out.size() != ref.size())
    return std::numeric_limits<double>::infinity();
  return relativeL2Error(out.data(), ref.data(), out.size());
}

/// True only for a finite error within `tolerance`.
inline bool withinRelativeL2(double error, double tolerance) {
  return std::isfinite(error) && error <= tolerance;
}

} // namespace gdn

#endif // GDN_REFERENCE_METRICS_H
