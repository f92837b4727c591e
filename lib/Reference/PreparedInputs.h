//===- PreparedInputs.h - Inputs after gates and normalisation --*- C++ -*-===//
//
// Both interfaces reduce to the same thing: per token and value head a
// log-decay g (possibly -inf), its alpha, a beta, and l2-normalised q/k.
// The algorithms and the scheduler only see this form.
//
//===----------------------------------------------------------------------===//
#ifndef GDN_LIB_REFERENCE_PREPAREDINPUTS_H
#define GDN_LIB_REFERENCE_PREPAREDINPUTS_H

#include "gdn/Reference/Reference.h"

#include <string>
#include <vector>

namespace gdn {

struct PreparedInputs {
  GdnDims dims;
  std::vector<double> q, k; // [T, H, K], normalised if requested, unscaled
  std::vector<double> v;    // [T, HV, V]
  std::vector<double> logDecay; // [T, HV] g, -inf where alpha == 0
  std::vector<double> decay;    // [T, HV] alpha, exactly as given in Linear
  std::vector<double> beta;     // [T, HV] after sigmoid where applicable
  double scale = 1.0;

  const double *qRow(int64_t t, int64_t hv) const {
    return &q[(t * dims.H + hv / dims.G) * dims.K];
  }
  const double *kRow(int64_t t, int64_t hv) const {
    return &k[(t * dims.H + hv / dims.G) * dims.K];
  }
  const double *vRow(int64_t t, int64_t hv) const {
    return &v[(t * dims.HV() + hv) * dims.V];
  }
  size_t gateIndex(int64_t t, int64_t hv) const { return t * dims.HV() + hv; }
};

/// "q has 10 elements; expected [T=2, H=1, K=8] = 16 elements"
Status checkElementCount(const char *name, size_t actual, int64_t expected,
                         const std::string &shapeText);
Status checkDims(const GdnDims &dims);
/// The checks both interfaces share: dims, then q / k [T, H, K] and
/// v [T, HV, V] element counts.
Status checkDimsAndQKV(const GdnDims &dims, size_t q, size_t k, size_t v);
/// state_pool holds whole [HV, V, K] rows.
Status checkPoolRows(const GdnDims &dims, size_t poolElements);

void l2NormalizeRows(std::vector<double> &x, int64_t rowLength);

} // namespace gdn

#endif
