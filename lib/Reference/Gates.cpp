//===- Gates.cpp - Gate and normalisation formulas of SPEC.md -------------===//
#include "gdn/Reference/Gates.h"

#include <cmath>

namespace gdn {

double softplus(double x) { return x <= 20.0 ? std::log1p(std::exp(x)) : x; }

double sigmoid(double x) {
  if (x >= 0)
    return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

double rawLogDecay(double a, double aLog, double dtBias) {
  // -exp(A_log) * softplus(s) as -exp(A_log + log softplus(s)): the same
  // value, and defined for every finite input (exp(A_log) overflows from
  // A_log = 710, and inf * softplus(s) is NaN where softplus(s) underflows).
  // log softplus(s) = s below -30 (log1p(e^s) = e^s to double precision).
  const double s = a + dtBias;
  const double logSoftplus = s < -30.0 ? s : std::log(softplus(s));
  return -std::exp(aLog + logSoftplus);
}

void l2NormalizeInPlace(double *row, int64_t length) {
  double sumSquares = 0;
  for (int64_t i = 0; i < length; ++i)
    sumSquares += row[i] * row[i];
  const double inverseNorm = 1.0 / std::sqrt(sumSquares + kL2NormEpsilon);
  for (int64_t i = 0; i < length; ++i)
    row[i] *= inverseNorm;
}

} // namespace gdn
