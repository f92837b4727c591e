//===- Gates.h - Gate and normalisation formulas of SPEC.md -----*- C++ -*-===//
#ifndef GDN_REFERENCE_GATES_H
#define GDN_REFERENCE_GATES_H

#include <cstdint>

namespace gdn {

constexpr double kL2NormEpsilon = 1e-6;
/// The largest A_log checked mode accepts: the kernels compute the decay
/// rate exp(A_log) in f32, which overflows from 88.73 (and inf times a
/// softplus that underflows to 0 is NaN).
constexpr double kMaxALog = 88.0;

/// log1p(exp(x)) for x <= 20, x above (the threshold serving kernels use).
double softplus(double x);
/// 1 / (1 + exp(-x)), evaluated without overflow for large |x|.
double sigmoid(double x);
/// Raw gate: g = -exp(A_log) * softplus(a + dt_bias).
double rawLogDecay(double a, double aLog, double dtBias);
/// x <- x * 1/sqrt(sum(x^2) + 1e-6), one q or k row of one head.
void l2NormalizeInPlace(double *row, int64_t length);

} // namespace gdn

#endif // GDN_REFERENCE_GATES_H
