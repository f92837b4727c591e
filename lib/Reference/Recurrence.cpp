//===- Recurrence.cpp - The recurrence of SPEC.md, literally --------------===//
//
//   alpha_t = exp(g_t)
//   M_t     = alpha_t * M_{t-1} + beta_t * (v_t - alpha_t * M_{t-1} k_t) k_t^T
//   o_t     = scale * M_t q_t
//
//===----------------------------------------------------------------------===//
#include "Algorithms.h"

namespace gdn {

void advanceRecurrent(const PreparedInputs &in, int64_t hv, int64_t begin,
                      int64_t end, double *state, double *o) {
  const int64_t K = in.dims.K, V = in.dims.V;
  std::vector<double> predicted(V); // alpha * M_{t-1} k_t
  for (int64_t t = begin; t < end; ++t) {
    const double *q = in.qRow(t, hv), *k = in.kRow(t, hv), *v = in.vRow(t, hv);
    // alpha is taken as given so that alpha = 0 (linear gates) stays exact.
    const double alpha = in.decay[in.gateIndex(t, hv)];
    const double beta = in.beta[in.gateIndex(t, hv)];
    for (int64_t i = 0; i < V; ++i) {
      double dot = 0;
      for (int64_t j = 0; j < K; ++j)
        dot += state[i * K + j] * k[j];
      predicted[i] = alpha * dot;
    }
    for (int64_t i = 0; i < V; ++i) {
      const double correction = beta * (v[i] - predicted[i]);
      for (int64_t j = 0; j < K; ++j)
        state[i * K + j] = alpha * state[i * K + j] + correction * k[j];
    }
    double *out = o + (t * in.dims.HV() + hv) * V;
    for (int64_t i = 0; i < V; ++i) {
      double dot = 0;
      for (int64_t j = 0; j < K; ++j)
        dot += state[i * K + j] * q[j];
      out[i] = in.scale * dot;
    }
  }
}

} // namespace gdn
