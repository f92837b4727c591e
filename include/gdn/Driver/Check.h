//===- Check.h - outputs against the float64 reference ----------*- C++ -*-===//

#ifndef GDN_DRIVER_CHECK_H
#define GDN_DRIVER_CHECK_H

#include "gdn/Driver/Problem.h"

namespace gdn::run {

/// Fills what the call must write with NaN: all of `o`, and the pages it
/// writes without reading them first. A kernel that skips an element or a
/// page then fails the check.
void poisonOutputs(HostTensor &o, HostTensor &pool, const WriteSet &writes);

struct CheckReport {
  double oError = 0;             // relative L2 over all of o
  double stateError = 0;         // max over written pages
  int64_t pagesWritten = 0;
  int64_t pagesUntouched = 0;    // pages that had to stay byte-identical
  std::vector<std::string> problems; // each a failed expectation, in words
  bool passed(double tolerance) const;
};

/// Compares o and every page the call must write with the reference, and
/// every other page byte for byte with `poolBefore`.
CheckReport checkOutputs(const Problem &after, const HostTensor &o,
                         const HostTensor &poolBefore,
                         const std::vector<double> &referencePool,
                         const ReferenceResult &reference,
                         const WriteSet &writes, double tolerance);

} // namespace gdn::run

#endif // GDN_DRIVER_CHECK_H
