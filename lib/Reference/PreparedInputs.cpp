//===- PreparedInputs.cpp - Shape checks and normalisation ----------------===//
#include "PreparedInputs.h"

#include "gdn/Reference/Gates.h"

namespace gdn {

Status checkElementCount(const char *name, size_t actual, int64_t expected,
                         const std::string &shapeText) {
  if (static_cast<int64_t>(actual) == expected)
    return Status::success();
  return Status::error(std::string(name) + " has " + std::to_string(actual) +
                       " elements; expected " + shapeText + " = " +
                       std::to_string(expected) + " elements");
}

Status checkDimsAndQKV(const GdnDims &d, size_t q, size_t k, size_t v) {
  if (Status s = checkDims(d); !s.ok())
    return s;
  const std::string qk = "[T=" + std::to_string(d.T) + ", H=" +
                         std::to_string(d.H) + ", K=" + std::to_string(d.K) +
                         "]";
  const std::string vShape = "[T=" + std::to_string(d.T) + ", HV=" +
                             std::to_string(d.HV()) + ", V=" +
                             std::to_string(d.V) + "]";
  if (Status s = checkElementCount("q", q, d.T * d.H * d.K, qk); !s.ok())
    return s;
  if (Status s = checkElementCount("k", k, d.T * d.H * d.K, qk); !s.ok())
    return s;
  return checkElementCount("v", v, d.T * d.HV() * d.V, vShape);
}

Status checkPoolRows(const GdnDims &d, size_t poolElements) {
  if (poolElements % d.stateElements() == 0)
    return Status::success();
  return Status::error("state_pool has " + std::to_string(poolElements) +
                       " elements, not a multiple of HV*V*K = " +
                       std::to_string(d.stateElements()) + " (expected [P, HV=" +
                       std::to_string(d.HV()) + ", V=" + std::to_string(d.V) +
                       ", K=" + std::to_string(d.K) + "])");
}

Status checkDims(const GdnDims &d) {
  if (d.T < 0 || d.H < 1 || d.G < 1 || d.K < 1 || d.V < 1)
    return Status::error("invalid dims T=" + std::to_string(d.T) +
                         ", H=" + std::to_string(d.H) + ", G=" +
                         std::to_string(d.G) + ", K=" + std::to_string(d.K) +
                         ", V=" + std::to_string(d.V) +
                         " (need T >= 0 and H, G, K, V >= 1)");
  return Status::success();
}

void l2NormalizeRows(std::vector<double> &x, int64_t rowLength) {
  for (size_t i = 0; i + rowLength <= x.size(); i += rowLength)
    l2NormalizeInPlace(&x[i], rowLength);
}

} // namespace gdn
