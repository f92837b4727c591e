//===- PagedReference.cpp - Paged interface (chunk_gated_delta_rule_paged) ===//
#include "Algorithms.h"
#include "PreparedInputs.h"
#include "gdn/Reference/Gates.h"
#include "gdn/Reference/PageTable.h"

#include <cmath>

namespace gdn {

namespace {

Status checkPagedInputs(const PagedProblem &p, size_t poolElements) {
  const GdnDims &d = p.dims;
  if (Status s = checkDimsAndQKV(d, p.q.size(), p.k.size(), p.v.size());
      !s.ok())
    return s;
  const std::string gateShape =
      "[T=" + std::to_string(d.T) + ", HV=" + std::to_string(d.HV()) + "]";
  const std::string headShape = "[HV=" + std::to_string(d.HV()) + "]";
  struct Check {
    const char *name;
    size_t size;
    int64_t expected;
    std::string shape;
  };
  std::vector<Check> checks = {{"beta", p.beta.size(), d.T * d.HV(), gateShape}};
  if (p.useGateInKernel) {
    checks.push_back({"a (raw gate, use_gate_in_kernel)", p.a.size(),
                      d.T * d.HV(), gateShape});
    checks.push_back({"A_log", p.aLog.size(), d.HV(), headShape});
    checks.push_back({"dt_bias", p.dtBias.size(), d.HV(), headShape});
  } else {
    checks.push_back({"g", p.g.size(), d.T * d.HV(), gateShape});
  }
  for (const Check &c : checks)
    if (Status s = checkElementCount(c.name, c.size, c.expected, c.shape); !s.ok())
      return s;
  return checkPoolRows(d, poolElements);
}

PreparedInputs preparePaged(const PagedProblem &p) {
  PreparedInputs in;
  in.dims = p.dims;
  in.q = p.q;
  in.k = p.k;
  in.v = p.v;
  if (p.useQkL2norm) {
    l2NormalizeRows(in.q, p.dims.K);
    l2NormalizeRows(in.k, p.dims.K);
  }
  in.scale = p.scale ? *p.scale : 1.0 / std::sqrt(double(p.dims.K));
  const int64_t HV = p.dims.HV();
  const size_t n = p.dims.T * HV;
  in.logDecay.resize(n);
  in.decay.resize(n);
  in.beta.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t hv = static_cast<int64_t>(i % HV);
    if (p.useGateInKernel) {
      in.logDecay[i] = rawLogDecay(p.a[i], p.aLog[hv], p.dtBias[hv]);
      in.decay[i] = std::exp(in.logDecay[i]);
    } else if (p.gateDomain == GateDomain::Log) {
      in.logDecay[i] = p.g[i];
      in.decay[i] = std::exp(p.g[i]);
    } else {
      // alpha is kept as given: alpha = 0 must decay to exactly zero.
      in.decay[i] = p.g[i];
      in.logDecay[i] = std::log(p.g[i]); // -inf for alpha = 0
    }
    in.beta[i] = p.betaIsLogit ? sigmoid(p.beta[i]) : p.beta[i];
  }
  return in;
}

} // namespace

Status runPagedReference(const PagedProblem &problem,
                         std::vector<double> &statePool,
                         ReferenceResult &result, Algorithm algorithm,
                         int64_t chunkSize) {
  result = ReferenceResult();
  if (chunkSize < 1)
    return Status::error("chunk size " + std::to_string(chunkSize) +
                         " must be positive");
  if (Status s = checkPagedInputs(problem, statePool.size()); !s.ok())
    return s;
  PageTable table;
  table.cuSeqlens = problem.cuSeqlens;
  table.pageIndices = problem.pageIndices;
  table.pageIndptr = problem.pageIndptr;
  table.lastPageLen = problem.lastPageLen;
  table.pageSize = problem.pageSize;
  table.poolSize = statePool.size() / problem.dims.stateElements();
  table.numTokens = problem.dims.T;
  std::vector<SequencePagePlan> plans;
  if (Status s = planPages(table, plans); !s.ok())
    return s;

  const PreparedInputs in = preparePaged(problem);
  result.o.assign(problem.dims.T * problem.dims.HV() * problem.dims.V, 0.0);
  for (const SequencePagePlan &plan : plans) {
    if (plan.newTokens == 0)
      continue;
    SequenceSchedule schedule;
    schedule.tokenBegin = plan.tokenBegin;
    schedule.numTokens = plan.newTokens;
    // Chunks are aligned to absolute positions (multiples of the chunk size).
    schedule.chunkPhase = plan.prefix;
    schedule.initialRow = plan.initialPage;
    for (const PageCheckpoint &c : plan.checkpoints)
      schedule.writes.push_back({c.afterPosition + 1 - plan.prefix, c.page});
    schedule.writes.push_back({plan.newTokens, plan.finalPage});
    runSequence(in, algorithm, chunkSize, schedule, statePool, result.o);
    for (int64_t page : plan.writtenPages())
      result.writtenRows.push_back(page);
  }
  return Status::success();
}

} // namespace gdn
