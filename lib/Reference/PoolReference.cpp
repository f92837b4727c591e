//===- PoolReference.cpp - Pool interface (gdn_extend_chunkwise) ----------===//
#include "Algorithms.h"
#include "PreparedInputs.h"
#include "gdn/Reference/Gates.h"
#include "gdn/Reference/PoolTable.h"

#include <cmath>

namespace gdn {

namespace {

Status checkPoolInputs(const PoolProblem &p, size_t poolElements) {
  const GdnDims &d = p.dims;
  if (Status s = checkDimsAndQKV(d, p.q.size(), p.k.size(), p.v.size());
      !s.ok())
    return s;
  const std::string gateShape =
      "[T=" + std::to_string(d.T) + ", HV=" + std::to_string(d.HV()) + "]";
  const std::string headShape = "[HV=" + std::to_string(d.HV()) + "]";
  const struct {
    const char *name;
    size_t size;
    int64_t expected;
    const std::string &shape;
  } checks[] = {
      {"a", p.a.size(), d.T * d.HV(), gateShape},
      {"b", p.b.size(), d.T * d.HV(), gateShape},
      {"A_log", p.aLog.size(), d.HV(), headShape},
      {"dt_bias", p.dtBias.size(), d.HV(), headShape},
  };
  for (const auto &c : checks)
    if (Status s = checkElementCount(c.name, c.size, c.expected, c.shape); !s.ok())
      return s;
  return checkPoolRows(d, poolElements);
}

PreparedInputs preparePool(const PoolProblem &p) {
  PreparedInputs in;
  in.dims = p.dims;
  in.q = p.q;
  in.k = p.k;
  in.v = p.v;
  l2NormalizeRows(in.q, p.dims.K);
  l2NormalizeRows(in.k, p.dims.K);
  in.scale = p.scale ? *p.scale : 1.0 / std::sqrt(double(p.dims.K));
  const int64_t HV = p.dims.HV();
  const size_t n = p.dims.T * HV;
  in.logDecay.resize(n);
  in.decay.resize(n);
  in.beta.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t hv = static_cast<int64_t>(i % HV);
    in.logDecay[i] = rawLogDecay(p.a[i], p.aLog[hv], p.dtBias[hv]);
    in.decay[i] = std::exp(in.logDecay[i]);
    in.beta[i] = sigmoid(p.b[i]);
  }
  return in;
}

} // namespace

Status runPoolReference(const PoolProblem &problem,
                        std::vector<double> &statePool, ReferenceResult &result,
                        Algorithm algorithm, int64_t chunkSize) {
  result = ReferenceResult();
  if (chunkSize < 1)
    return Status::error("chunk size " + std::to_string(chunkSize) +
                         " must be positive");
  if (Status s = checkPoolInputs(problem, statePool.size()); !s.ok())
    return s;
  PoolTable table;
  table.cuSeqlens = problem.cuSeqlens;
  table.cacheIndices = problem.cacheIndices;
  table.poolSize = statePool.size() / problem.dims.stateElements();
  table.numTokens = problem.dims.T;
  if (Status s = validatePoolTable(table); !s.ok())
    return s;

  const PreparedInputs in = preparePool(problem);
  result.o.assign(problem.dims.T * problem.dims.HV() * problem.dims.V, 0.0);
  for (size_t b = 0; b + 1 < problem.cuSeqlens.size(); ++b) {
    SequenceSchedule schedule;
    schedule.tokenBegin = problem.cuSeqlens[b];
    schedule.numTokens = problem.cuSeqlens[b + 1] - problem.cuSeqlens[b];
    if (schedule.numTokens == 0)
      continue;
    schedule.initialRow = problem.cacheIndices[b];
    schedule.writes.push_back({schedule.numTokens, problem.cacheIndices[b]});
    runSequence(in, algorithm, chunkSize, schedule, statePool, result.o);
    result.writtenRows.push_back(problem.cacheIndices[b]);
  }
  return Status::success();
}

} // namespace gdn
