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
