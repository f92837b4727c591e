//===- Gates.h - Gate and normalisation formulas of SPEC.md -----*- C++ -*-===//
#ifndef GDN_REFERENCE_GATES_H
#define GDN_REFERENCE_GATES_H

#include <cstdint>

namespace gdn {

constexpr double kL2NormEpsilon = 1e-6;

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
