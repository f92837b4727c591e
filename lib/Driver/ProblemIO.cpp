//===- ProblemIO.cpp - validate a call and evaluate its reference ---------===//

#include "gdn/Driver/Problem.h"

#include "gdn/Reference/Gates.h"
#include "gdn/Reference/PageTable.h"
#include "gdn/Reference/PoolTable.h"
#include "gdn/Runtime/KernelArgs.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

using namespace gdn;
using namespace gdn::run;

int64_t Problem::longestSequence() const {
  if (shapesOnly)
    return dims.T;
  std::vector<int64_t> cu = tensors.at("cu_seqlens").toIndices();
  int64_t longest = 0;
  for (size_t b = 0; b + 1 < cu.size(); ++b)
    longest = std::max(longest, cu[b + 1] - cu[b]);
  return longest;
}

int64_t Problem::batch() const {
  auto it = tensors.find("cu_seqlens");
  return it == tensors.end() || it->second.shape.empty()
             ? 0
             : it->second.shape[0] - 1;
}

namespace {
const std::vector<std::string> kPoolNames = {
    "q", "k", "v", "a", "b", "A_log", "dt_bias", "state_pool",
    "cache_indices", "cu_seqlens"};
const std::vector<std::string> kPagedNames = {
    "q", "k", "v", "g", "beta", "state_pool", "page_indices", "page_indptr",
    "last_page_len", "cu_seqlens", "A_log", "dt_bias"};

std::string join(const std::vector<std::string> &v) {
  std::string s;
  for (const auto &x : v)
    s += (s.empty() ? "" : " ") + x;
  return s;
}

const std::initializer_list<DType> kFloat = {DType::F32, DType::BF16, DType::F16};
const std::initializer_list<DType> kIndex = {DType::I32, DType::I64};
} // namespace

Status run::validateProblem(Problem &p) {
  TensorMap &t = p.tensors;
  bool pool = t.count("cache_indices"), paged = t.count("page_indices");
  if (pool && paged)
    return Status::error("inputs hold both cache_indices (pool interface) and "
                         "page_indices (paged interface); give one");
  if (!pool && !paged)
    return Status::error("inputs hold neither cache_indices (pool interface) "
                         "nor page_indices (paged interface)");
  p.interface = pool ? Interface::Pool : Interface::Paged;
  const auto &names = pool ? kPoolNames : kPagedNames;
  for (const auto &[name, tensor] : t)
    if (std::find(names.begin(), names.end(), name) == names.end())
      return Status::error("unexpected tensor '" + name + "' " +
                           tensor.describe() + " for the " +
                           (pool ? "pool" : "paged") +
                           " interface (expected: " + join(names) + ")");
  bool gateInKernel = pool || p.flags.useGateInKernel;
  std::vector<std::string> required =
      pool ? kPoolNames
           : std::vector<std::string>{"q", "k", "v", "g", "beta", "state_pool",
                                      "page_indices", "page_indptr",
                                      "last_page_len", "cu_seqlens"};
  if (paged && gateInKernel) {
    required.push_back("A_log");
    required.push_back("dt_bias");
  }
  for (const auto &name : required)
    if (!t.count(name))
      return Status::error(std::string("missing tensor '") + name + "' for the " +
                           (pool ? "pool" : "paged") + " interface" +
                           (paged && (name == "A_log" || name == "dt_bias")
                                ? " with use_gate_in_kernel "
                                  "(--use-gate-in-kernel)"
                                : ""));
  if (paged && !gateInKernel && (t.count("A_log") || t.count("dt_bias")))
    return Status::error("A_log / dt_bias given but --use-gate-in-kernel is "
                         "not set: the gate would be read as g");
  if (p.flags.chunkSize != 0 && !KernelShape::validChunk(p.flags.chunkSize))
    return Status::error("chunk size (--chunk-size, chunk_size) " +
                         std::to_string(p.flags.chunkSize) +
                         " is not supported: expected 32, 64 or 128 "
                         "(SPEC.md)");

  // The kernels take page_size as a scalar, also where the page table is
  // the caller's precondition (device calls, unchecked).
  if (paged)
    if (Status s = validatePageSize(p.flags.pageSize); !s.ok())
      return s;

  // Kernels index tensors with 32-bit offsets on the GPU.
  for (const auto &[name, tensor] : t)
    if (tensor.numel() > INT32_MAX)
      return Status::error("tensor '" + name + "' " + tensor.describe() +
                           " has more than 2^31 - 1 elements; element offsets "
                           "must fit in 32 bits");
  const HostTensor &q = t["q"];
  if (Status s = expectDType("q", q, {DType::BF16, DType::F16}); !s.ok())
    return s;
  if (q.shape.size() != 3)
    return Status::error("q " + q.describe() + " must be [T, H, K]");
  GdnDims d;
  d.T = q.shape[0];
  d.H = q.shape[1];
  d.K = q.shape[2];
  const HostTensor &v = t["v"];
  if (v.shape.size() != 3 || v.shape[0] != d.T)
    return Status::error("v " + v.describe() + " must be [T=" +
                         std::to_string(d.T) + ", HV, V]");
  int64_t HV = v.shape[1];
  d.V = v.shape[2];
  if (d.H <= 0 || HV <= 0 || HV % d.H != 0)
    return Status::error("v " + v.describe() + " has HV=" + std::to_string(HV) +
                         " value heads, not a positive multiple of H=" +
                         std::to_string(d.H) + " (q " + q.describe() + ")");
  d.G = HV / d.H;
  for (auto [name, size, max] :
       {std::tuple{"K", d.K, KernelShape::kMaxK},
        std::tuple{"V", d.V, KernelShape::kMaxV}})
    if (size < 1 || size > max)
      return Status::error(std::string("head size ") + name + " = " +
                           std::to_string(size) + " (q " + q.describe() +
                           ", v " + v.describe() + "): expected 1 to " +
                           std::to_string(max));
  if (Status s = expectShape("k", t["k"], q.shape); !s.ok())
    return s;
  for (const char *name : {"k", "v"})
    if (t[name].dtype != q.dtype)
      return Status::typeError(std::string(name) + " " +
                               t[name].describe() +
                               " must have the dtype of q (" +
                               dtypeName(q.dtype) + ")");
  for (const char *name : {"a", "b", "g", "beta"})
    if (t.count(name)) {
      if (Status s = expectDType(name, t[name], kFloat); !s.ok())
        return s;
      if (Status s = expectShape(name, t[name], {d.T, HV}); !s.ok())
        return s;
    }
  for (const char *name : {"A_log", "dt_bias"})
    if (t.count(name)) {
      if (Status s = expectDType(name, t[name], kFloat); !s.ok())
        return s;
      if (Status s = expectShape(name, t[name], {HV}); !s.ok())
        return s;
    }
  const HostTensor &sp = t["state_pool"];
  // fp32, or a 16-bit pool the kernels read and write in place.
  if (Status s = expectDType("state_pool", sp,
                             {DType::F32, DType::BF16, DType::F16});
      !s.ok())
    return s;
  if (sp.shape.size() != 4 || sp.shape[1] != HV || sp.shape[2] != d.V ||
      sp.shape[3] != d.K)
    return Status::error("state_pool " + sp.describe() + " must be [P, HV=" +
                         std::to_string(HV) + ", V=" + std::to_string(d.V) +
                         ", K=" + std::to_string(d.K) + "]");
  const int64_t P = sp.shape[0];
  for (const auto &name : {"cu_seqlens", "cache_indices", "page_indices",
                           "page_indptr", "last_page_len"})
    if (t.count(name)) {
      if (Status s = expectDType(name, t[name], kIndex); !s.ok())
        return s;
      if (t[name].shape.size() != 1)
        return Status::error(std::string(name) + " " + t[name].describe() +
                             " must be one-dimensional");
    }
  if (t["cu_seqlens"].shape[0] < 1)
    return Status::error("cu_seqlens " + t["cu_seqlens"].describe() +
                         " needs at least one entry (B + 1)");
  p.dims = d;
  if (p.shapesOnly)
    return Status::success();
  if (pool) {
    PoolTable table;
    table.cuSeqlens = t["cu_seqlens"].toIndices();
    table.cacheIndices = t["cache_indices"].toIndices();
    table.poolSize = P;
    table.numTokens = d.T;
    if (Status s = validatePoolTable(table); !s.ok())
      return s;
  } else {
    PageTable table;
    table.cuSeqlens = t["cu_seqlens"].toIndices();
    table.pageIndices = t["page_indices"].toIndices();
    table.pageIndptr = t["page_indptr"].toIndices();
    table.lastPageLen = t["last_page_len"].toIndices();
    table.pageSize = p.flags.pageSize;
    table.poolSize = P;
    table.numTokens = d.T;
    if (Status s = validatePageTable(table); !s.ok())
      return s;
  }
  p.dims = d;
  return Status::success();
}

Status run::checkGateValues(const Problem &p) {
  const TensorMap &t = p.tensors;
  for (const char *name : {"a", "b", "g", "beta", "A_log", "dt_bias"}) {
    if (!t.count(name))
      continue;
    const HostTensor &x = t.at(name);
    for (int64_t i = 0, n = x.numel(); i < n; ++i)
      if (!std::isfinite(x.doubleAt(i)))
        return Status::error("gate tensor '" + std::string(name) + "' " +
                             x.describe() + " has a non-finite value (" +
                             std::to_string(x.doubleAt(i)) + ") at element " +
                             std::to_string(i));
  }
  // The kernels compute exp(A_log), the decay rate, in f32.
  if (t.count("A_log")) {
    const HostTensor &aLog = t.at("A_log");
    for (int64_t i = 0, n = aLog.numel(); i < n; ++i)
      if (aLog.doubleAt(i) > kMaxALog)
        return Status::error(
            "gate tensor 'A_log' " + aLog.describe() + " holds " +
            std::to_string(aLog.doubleAt(i)) + " at element " +
            std::to_string(i) + "; exp(A_log), the decay rate, must be a "
            "finite f32 with room: A_log <= 88");
  }
  if (p.interface != Interface::Paged || p.flags.useGateInKernel)
    return Status::success();
  const HostTensor &g = t.at("g");
  const bool linear = p.flags.gateDomain == GateDomain::Linear;
  for (int64_t i = 0, n = g.numel(); i < n; ++i) {
    double x = g.doubleAt(i);
    if (linear ? (x < 0 || x > 1) : x > 0)
      return Status::error(
          "gate 'g' " + g.describe() + " holds " + std::to_string(x) +
          " at element " + std::to_string(i) + " (token " +
          std::to_string(i / g.shape[1]) + ", value head " +
          std::to_string(i % g.shape[1]) + "); " +
          (linear ? "a linear-domain gate is a decay alpha in [0, 1]"
                  : "a log-domain gate is a log decay <= 0"));
  }
  return Status::success();
}

Status run::referenceRun(const Problem &p, std::vector<double> &pool,
                         ReferenceResult &result) {
  const TensorMap &t = p.tensors;
  auto get = [&](const char *name) { return t.at(name).toDoubles(); };
  auto idx = [&](const char *name) { return t.at(name).toIndices(); };
  if (p.interface == Interface::Pool) {
    PoolProblem r;
    r.dims = p.dims;
    r.q = get("q");
    r.k = get("k");
    r.v = get("v");
    r.a = get("a");
    r.b = get("b");
    r.aLog = get("A_log");
    r.dtBias = get("dt_bias");
    r.cuSeqlens = idx("cu_seqlens");
    r.cacheIndices = idx("cache_indices");
    r.scale = p.flags.scale;
    return runPoolReference(r, pool, result);
  }
  PagedProblem r;
  r.dims = p.dims;
  r.q = get("q");
  r.k = get("k");
  r.v = get("v");
  if (p.flags.useGateInKernel) {
    r.a = get("g");
    r.aLog = get("A_log");
    r.dtBias = get("dt_bias");
  } else {
    r.g = get("g");
  }
  r.beta = get("beta");
  r.scale = p.flags.scale;
  r.cuSeqlens = idx("cu_seqlens");
  r.pageIndices = idx("page_indices");
  r.pageIndptr = idx("page_indptr");
  r.lastPageLen = idx("last_page_len");
  r.pageSize = p.flags.pageSize;
  r.useQkL2norm = p.flags.qkL2norm;
  r.gateDomain = p.flags.gateDomain;
  r.useGateInKernel = p.flags.useGateInKernel;
  r.betaIsLogit = p.flags.betaIsLogit;
  return runPagedReference(r, pool, result);
}

Status run::expectedWrites(const Problem &p, WriteSet &w) {
  const TensorMap &t = p.tensors;
  std::set<int64_t> written, read;
  std::vector<int64_t> cu = t.at("cu_seqlens").toIndices();
  if (p.interface == Interface::Pool) {
    std::vector<int64_t> rows = t.at("cache_indices").toIndices();
    for (size_t b = 0; b + 1 < cu.size(); ++b)
      if (cu[b + 1] > cu[b]) {
        written.insert(rows[b]);
        read.insert(rows[b]);
      }
  } else {
    PageTable table;
    table.cuSeqlens = cu;
    table.pageIndices = t.at("page_indices").toIndices();
    table.pageIndptr = t.at("page_indptr").toIndices();
    table.lastPageLen = t.at("last_page_len").toIndices();
    table.pageSize = p.flags.pageSize;
    table.poolSize = t.at("state_pool").shape[0];
    std::vector<SequencePagePlan> plans;
    if (Status s = planPages(table, plans); !s.ok())
      return s;
    for (const auto &plan : plans) {
      for (int64_t page : plan.writtenPages())
        written.insert(page);
      if (plan.newTokens > 0 && plan.initialPage >= 0)
        read.insert(plan.initialPage);
    }
  }
  w.written.assign(written.begin(), written.end());
  w.read.assign(read.begin(), read.end());
  return Status::success();
}
