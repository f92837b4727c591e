//===- ChunkedWY.cpp - SPEC.md's chunked (WY) form, in float64 ------------===//
//
// For a chunk of L tokens entering with state M0 (V x K):
//   gamma_i = g_0 + ... + g_i
//   A_ij    = beta_i (k_i . k_j) exp(gamma_i - gamma_j)   i > j, else 0
//   Tm      = (I + A)^-1
//   W       = Tm diag(beta * exp(gamma)) K,   U = Tm diag(beta) V
//   Vn      = U - W M0^T
//   O       = scale * (diag(exp(gamma)) Q M0^T + (Q K^T (.) D) Vn)
//   M_L     = exp(gamma_{L-1}) M0 + Vn^T diag(exp(gamma_{L-1} - gamma)) K
//
// Decay ratios exp(gamma_i - gamma_j) are evaluated as exp of the sum of g
// over (j, i] rather than as a difference of cumulative sums: identical in
// exact arithmetic, and it keeps alpha = 0 (g = -inf) from producing
// -inf - -inf = NaN. Nothing is ever divided by a cumulative decay.
//
//===----------------------------------------------------------------------===//
#include "Algorithms.h"

#include <cmath>

namespace gdn {

namespace {

double dot(const double *x, const double *y, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i)
    s += x[i] * y[i];
  return s;
}

} // namespace

void advanceChunkWY(const PreparedInputs &in, int64_t hv, int64_t begin,
                    int64_t end, double *state, double *o) {
  const int64_t K = in.dims.K, V = in.dims.V, L = end - begin;
  if (L <= 0)
    return;
  auto g = [&](int64_t i) { return in.logDecay[in.gateIndex(begin + i, hv)]; };
  auto beta = [&](int64_t i) { return in.beta[in.gateIndex(begin + i, hv)]; };
  auto q = [&](int64_t i) { return in.qRow(begin + i, hv); };
  auto k = [&](int64_t i) { return in.kRow(begin + i, hv); };
  auto v = [&](int64_t i) { return in.vRow(begin + i, hv); };

  // logRatio[i*L + j] = gamma_i - gamma_j = g_{j+1} + ... + g_i  (j <= i).
  std::vector<double> logRatio(L * L, 0.0);
  for (int64_t i = 0; i < L; ++i) {
    double sum = 0;
    for (int64_t j = i - 1; j >= 0; --j) {
      sum += g(j + 1);
      logRatio[i * L + j] = sum;
    }
  }
  std::vector<double> gammaExp(L), tailExp(L); // exp(gamma_i), exp(gamma_{L-1} - gamma_i)
  {
    double sum = 0;
    for (int64_t i = 0; i < L; ++i)
      gammaExp[i] = std::exp(sum += g(i));
    sum = 0;
    for (int64_t i = L - 1; i >= 0; --i) {
      tailExp[i] = std::exp(sum);
      if (i > 0)
        sum += g(i);
    }
  }

  // A (strictly lower), then W and U by forward substitution:
  // (I + A) W = diag(beta exp(gamma)) K,  (I + A) U = diag(beta) V.
  std::vector<double> A(L * L, 0.0);
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < i; ++j)
      A[i * L + j] = beta(i) * dot(k(i), k(j), K) * std::exp(logRatio[i * L + j]);
  std::vector<double> W(L * K), U(L * V);
  for (int64_t i = 0; i < L; ++i) {
    for (int64_t c = 0; c < K; ++c) {
      double x = beta(i) * gammaExp[i] * k(i)[c];
      for (int64_t j = 0; j < i; ++j)
        x -= A[i * L + j] * W[j * K + c];
      W[i * K + c] = x;
    }
    for (int64_t c = 0; c < V; ++c) {
      double x = beta(i) * v(i)[c];
      for (int64_t j = 0; j < i; ++j)
        x -= A[i * L + j] * U[j * V + c];
      U[i * V + c] = x;
    }
  }

  // Vn = U - W M0^T.
  std::vector<double> Vn(L * V);
  for (int64_t i = 0; i < L; ++i)
    for (int64_t c = 0; c < V; ++c)
      Vn[i * V + c] = U[i * V + c] - dot(&W[i * K], &state[c * K], K);

  // O = scale * (diag(exp(gamma)) Q M0^T + (Q K^T (.) D) Vn).
  for (int64_t i = 0; i < L; ++i) {
    double *out = o + ((begin + i) * in.dims.HV() + hv) * V;
    std::vector<double> mask(i + 1);
    for (int64_t j = 0; j <= i; ++j)
      mask[j] = dot(q(i), k(j), K) * std::exp(logRatio[i * L + j]);
    for (int64_t c = 0; c < V; ++c) {
      double x = gammaExp[i] * dot(q(i), &state[c * K], K);
      for (int64_t j = 0; j <= i; ++j)
        x += mask[j] * Vn[j * V + c];
      out[c] = in.scale * x;
    }
  }

  // M_L = exp(gamma_{L-1}) M0 + Vn^T diag(exp(gamma_{L-1} - gamma)) K.
  for (int64_t r = 0; r < V; ++r)
    for (int64_t c = 0; c < K; ++c) {
      double x = gammaExp[L - 1] * state[r * K + c];
      for (int64_t i = 0; i < L; ++i)
        x += Vn[i * V + r] * tailExp[i] * k(i)[c];
      state[r * K + c] = x;
    }
}

} // namespace gdn
