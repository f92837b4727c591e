//===- Check.cpp - outputs against the float64 reference ------------------===//

#include "gdn/Driver/Check.h"

#include "gdn/Reference/Metrics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

using namespace gdn;
using namespace gdn::run;

void run::poisonOutputs(HostTensor &o, HostTensor &pool,
                        const WriteSet &writes) {
  // In place: kernel arguments already point at these buffers.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  HostTensor nans = HostTensor::fromDoubles(o.dtype, o.shape,
                                            std::vector<double>(o.numel(), nan));
  std::memcpy(o.data.data(), nans.data.data(), o.data.size());
  // A page of NaNs in the pool's own dtype (fp32, bf16 or fp16).
  const int64_t page = pool.numel() / pool.shape[0];
  HostTensor nanPage = HostTensor::fromDoubles(
      pool.dtype, {page}, std::vector<double>(page, nan));
  const size_t pageBytes = nanPage.data.size();
  for (int64_t id : writes.written)
    if (!std::binary_search(writes.read.begin(), writes.read.end(), id))
      std::memcpy(pool.data.data() + id * pageBytes, nanPage.data.data(),
                  pageBytes);
}

bool CheckReport::passed(double tolerance) const {
  return problems.empty() && withinRelativeL2(oError, tolerance) &&
         withinRelativeL2(stateError, tolerance);
}

CheckReport run::checkOutputs(const Problem &after, const HostTensor &o,
                              const HostTensor &poolBefore,
                              const std::vector<double> &refPool,
                              const ReferenceResult &ref,
                              const WriteSet &writes, double tolerance) {
  CheckReport r;
  std::vector<double> out = o.toDoubles();
  r.oError = relativeL2Error(out, ref.o);
  size_t unwritten = std::count_if(out.begin(), out.end(),
                                   [](double x) { return std::isnan(x); });
  if (unwritten)
    r.problems.push_back("o: " + std::to_string(unwritten) +
                         " elements are NaN (not written, or computed NaN)");

  const HostTensor &pool = after.tensors.at("state_pool");
  const int64_t P = pool.shape[0], page = pool.numel() / P;
  const std::vector<double> now = pool.toDoubles();
  for (int64_t id : writes.written) {
    double err = relativeL2Error(now.data() + id * page,
                                 refPool.data() + id * page, page);
    r.stateError = std::max(r.stateError, std::isnan(err) ? INFINITY : err);
    if (!withinRelativeL2(err, tolerance)) {
      std::ostringstream msg;
      msg << "state_pool page " << id << ": relative error " << err;
      r.problems.push_back(msg.str());
    }
  }
  r.pagesWritten = writes.written.size();
  for (int64_t id = 0; id < P; ++id) {
    if (std::binary_search(writes.written.begin(), writes.written.end(), id))
      continue;
    ++r.pagesUntouched;
    const size_t pageBytes = pool.data.size() / P;
    if (std::memcmp(pool.data.data() + id * pageBytes,
                    poolBefore.data.data() + id * pageBytes, pageBytes) != 0)
      r.problems.push_back("state_pool page " + std::to_string(id) +
                           " must not be written but changed");
  }
  return r;
}
