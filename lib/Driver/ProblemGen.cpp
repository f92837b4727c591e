//===- ProblemGen.cpp - random GDN problems for gdn-run -------------------===//

#include "gdn/Driver/Problem.h"
#include "gdn/Reference/PageTable.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace gdn;
using namespace gdn::run;

GenConfig run::defaultConfig() {
  GenConfig c;
  // Sequence 1 continues a page mid-way (prefix 1000, page 256), sequence 2
  // starts on a page boundary, sequence 3 has no new tokens.
  c.seqlens = {300, 100, 65, 0, 1};
  c.prefixes = {0, 1000, 512, 256, 63};
  c.gate = "raw";
  return c;
}

namespace {
std::vector<double> normal(std::mt19937_64 &rng, size_t n, double sd = 1.0) {
  std::normal_distribution<double> d(0.0, sd);
  std::vector<double> v(n);
  for (double &x : v)
    x = d(rng);
  return v;
}

std::vector<double> uniform(std::mt19937_64 &rng, size_t n, double lo,
                            double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = d(rng);
  return v;
}

/// Rows of `rows x width` scaled to unit l2 norm (inputs for runs without
/// l2norm in the kernel, so the state stays bounded as in real models).
void unitRows(std::vector<double> &x, int64_t width) {
  for (size_t r = 0; r * width < x.size(); ++r) {
    double ss = 0;
    for (int64_t c = 0; c < width; ++c)
      ss += x[r * width + c] * x[r * width + c];
    double inv = ss > 0 ? 1.0 / std::sqrt(ss) : 0.0;
    for (int64_t c = 0; c < width; ++c)
      x[r * width + c] *= inv;
  }
}
} // namespace

Status run::generateProblem(const GenConfig &cfg, const CallFlags &flags,
                            std::mt19937_64 &rng, Problem &p) {
  if (cfg.H <= 0 || cfg.HV <= 0 || cfg.HV % cfg.H != 0)
    return Status::error("--value-heads (" + std::to_string(cfg.HV) +
                         ") must be a positive multiple of --heads (" +
                         std::to_string(cfg.H) + ")");
  if (cfg.seqlens.empty())
    return Status::error("--seqlens needs at least one sequence");
  const int64_t B = cfg.seqlens.size();
  std::vector<int64_t> prefixes = cfg.prefixes;
  if (cfg.interface == Interface::Paged) {
    if (prefixes.empty())
      prefixes.assign(B, 0);
    if (static_cast<int64_t>(prefixes.size()) != B)
      return Status::error("--prefixes has " + std::to_string(prefixes.size()) +
                           " entries, --seqlens " + std::to_string(B));
  }
  if (cfg.gate != "raw" && cfg.gate != "log" && cfg.gate != "linear")
    return Status::error("--gate must be raw, log or linear, got '" +
                         cfg.gate + "'");
  p = Problem();
  p.interface = cfg.interface;
  p.flags = flags;
  p.flags.useGateInKernel = cfg.gate == "raw";
  p.flags.gateDomain = cfg.gate == "linear" ? GateDomain::Linear : GateDomain::Log;
  std::vector<int64_t> cu(B + 1, 0);
  for (int64_t b = 0; b < B; ++b) {
    if (cfg.seqlens[b] < 0)
      return Status::error("--seqlens entry " + std::to_string(b) +
                           " is negative");
    cu[b + 1] = cu[b] + cfg.seqlens[b];
  }
  const int64_t T = cu[B], H = cfg.H, HV = cfg.HV, K = cfg.K, V = cfg.V;
  auto put = [&](const std::string &name, DType dt, std::vector<int64_t> shape,
                 const std::vector<double> &values) {
    p.tensors[name] = HostTensor::fromDoubles(dt, std::move(shape), values);
  };

  std::vector<double> q = normal(rng, T * H * K), k = normal(rng, T * H * K);
  bool l2 = cfg.interface == Interface::Pool || p.flags.qkL2norm;
  if (!l2) {
    unitRows(q, K);
    unitRows(k, K);
  }
  for (int64_t i = 0; i < T * H * K; ++i) {
    bool zero = cfg.zeroQkEvery > 0 && (i / (H * K)) % cfg.zeroQkEvery == 0;
    q[i] = zero ? 0.0 : q[i] * cfg.qkScale;
    k[i] = zero ? 0.0 : k[i] * cfg.qkScale;
  }
  put("q", cfg.dtype, {T, H, K}, q);
  put("k", cfg.dtype, {T, H, K}, k);
  put("v", cfg.dtype, {T, HV, V}, normal(rng, T * HV * V));
  p.tensors["cu_seqlens"] = HostTensor::fromIndices(DType::I64, {B + 1}, cu);

  bool raw = cfg.interface == Interface::Pool || cfg.gate == "raw";
  if (raw) {
    put(cfg.interface == Interface::Pool ? "a" : "g", DType::F32, {T, HV},
        normal(rng, T * HV, cfg.gateScale));
    put("A_log", DType::F32, {HV}, uniform(rng, HV, -1.5, 0.5));
    put("dt_bias", DType::F32, {HV}, uniform(rng, HV, -3.0, -1.0));
  } else {
    std::vector<double> g = uniform(rng, T * HV, -cfg.maxDecay, 0.0);
    if (cfg.gate == "linear")
      for (int64_t i = 0; i < T * HV; ++i) {
        bool reset = cfg.zeroAlphaEvery > 0 && (i / HV) % cfg.zeroAlphaEvery == 0;
        g[i] = reset ? 0.0 : std::exp(g[i]);
      }
    put("g", DType::F32, {T, HV}, g);
  }
  if (cfg.interface == Interface::Pool) {
    put("b", DType::F32, {T, HV}, normal(rng, T * HV, 1.5));
  } else if (p.flags.betaIsLogit) {
    put("beta", DType::F32, {T, HV}, normal(rng, T * HV, 1.5));
  } else if (cfg.betaValue >= 0) {
    put("beta", DType::F32, {T, HV}, std::vector<double>(T * HV, cfg.betaValue));
  } else {
    put("beta", DType::F32, {T, HV}, uniform(rng, T * HV, 0.0, 1.0));
  }

  const double stateSd = 0.1;
  if (cfg.interface == Interface::Pool) {
    const int64_t P = B + cfg.sparePages;
    std::vector<int64_t> rows(P);
    std::iota(rows.begin(), rows.end(), 0);
    std::shuffle(rows.begin(), rows.end(), rng);
    rows.resize(B);
    p.tensors["cache_indices"] = HostTensor::fromIndices(DType::I64, {B}, rows);
    put("state_pool", cfg.stateDtype, {P, HV, V, K},
        normal(rng, P * HV * V * K, stateSd));
    return Status::success();
  }

  // Paged: each sequence owns ceil(L / page_size) pages; with sharedPrefix,
  // sequences 0 and 1 share their full prefix pages (read-only).
  const int64_t ps = p.flags.pageSize;
  if (Status s = validatePageSize(ps, "--page-size"); !s.ok())
    return s;
  std::vector<int64_t> counts(B), lastLen(B);
  int64_t total = 0;
  for (int64_t b = 0; b < B; ++b) {
    int64_t L = prefixes[b] + cfg.seqlens[b];
    if (prefixes[b] < 0 || L <= 0)
      return Status::error("sequence " + std::to_string(b) +
                           " needs a non-negative prefix and at least one "
                           "token in its pages (prefix + new > 0)");
    counts[b] = (L + ps - 1) / ps;
    lastLen[b] = L - (counts[b] - 1) * ps;
    total += counts[b];
  }
  int64_t shared = 0;
  if (cfg.sharedPrefix) {
    if (B < 2 || prefixes[0] != prefixes[1] || prefixes[0] < ps)
      return Status::error("--shared-prefix needs sequences 0 and 1 to have "
                           "the same prefix of at least one full page");
    shared = prefixes[0] / ps; // full pages that end at or before the prefix
  }
  const int64_t P = total - shared + cfg.sparePages;
  std::vector<int64_t> ids(P);
  std::iota(ids.begin(), ids.end(), 0);
  if (cfg.shufflePages)
    std::shuffle(ids.begin(), ids.end(), rng);
  std::vector<int64_t> indices, indptr{0};
  size_t next = 0;
  std::vector<int64_t> sharedIds;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t j = 0; j < counts[b]; ++j) {
      if (b == 1 && j < shared) {
        indices.push_back(sharedIds[j]);
        continue;
      }
      indices.push_back(ids[next++]);
      if (b == 0 && j < shared)
        sharedIds.push_back(indices.back());
    }
    indptr.push_back(indices.size());
  }
  const int64_t n = indices.size();
  p.tensors["page_indices"] = HostTensor::fromIndices(DType::I64, {n}, indices);
  p.tensors["page_indptr"] = HostTensor::fromIndices(DType::I64, {B + 1}, indptr);
  p.tensors["last_page_len"] = HostTensor::fromIndices(DType::I64, {B}, lastLen);
  put("state_pool", cfg.stateDtype, {P, HV, V, K},
      normal(rng, P * HV * V * K, stateSd));
  return Status::success();
}
