//===- ReferenceTest.cpp - The float64 reference against hand and theory --===//
#include "gdn/Reference/Gates.h"
#include "gdn/Reference/Metrics.h"
#include "gdn/Reference/Reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

using namespace gdn;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

struct Rng {
  std::mt19937_64 engine;
  explicit Rng(uint64_t seed) : engine(seed) {}
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(engine);
  }
  std::vector<double> uniforms(size_t n, double lo, double hi) {
    std::vector<double> x(n);
    for (double &e : x)
      e = uniform(lo, hi);
    return x;
  }
};

GdnDims makeDims(int64_t T, int64_t H, int64_t G, int64_t K, int64_t V) {
  GdnDims d;
  d.T = T, d.H = H, d.G = G, d.K = K, d.V = V;
  return d;
}

/// Random paged problem in the log gate domain with l2norm on; the caller
/// fills in the page table.
PagedProblem randomPaged(GdnDims dims, uint64_t seed, double gMin = -1.0,
                         double gMax = 0.0) {
  Rng rng(seed);
  PagedProblem p;
  p.dims = dims;
  p.q = rng.uniforms(dims.T * dims.H * dims.K, -1, 1);
  p.k = rng.uniforms(dims.T * dims.H * dims.K, -1, 1);
  p.v = rng.uniforms(dims.T * dims.HV() * dims.V, -1, 1);
  p.g = rng.uniforms(dims.T * dims.HV(), gMin, gMax);
  p.beta = rng.uniforms(dims.T * dims.HV(), 0, 1);
  p.useQkL2norm = true;
  p.gateDomain = GateDomain::Log;
  return p;
}

PoolProblem randomPool(GdnDims dims, uint64_t seed) {
  Rng rng(seed);
  PoolProblem p;
  p.dims = dims;
  p.q = rng.uniforms(dims.T * dims.H * dims.K, -1, 1);
  p.k = rng.uniforms(dims.T * dims.H * dims.K, -1, 1);
  p.v = rng.uniforms(dims.T * dims.HV() * dims.V, -1, 1);
  p.a = rng.uniforms(dims.T * dims.HV(), -3, 3);
  p.b = rng.uniforms(dims.T * dims.HV(), -3, 3);
  p.aLog = rng.uniforms(dims.HV(), -1, 1);
  p.dtBias = rng.uniforms(dims.HV(), -1, 1);
  return p;
}

/// Rows [begin, end) of a token-major array with `width` values per token.
std::vector<double> rows(const std::vector<double> &x, int64_t width,
                         int64_t begin, int64_t end) {
  return std::vector<double>(x.begin() + begin * width, x.begin() + end * width);
}

/// Tokens [begin, end) of a paged problem, as a single-sequence problem
/// (page table left for the caller).
PagedProblem sliceTokens(const PagedProblem &p, int64_t begin, int64_t end) {
  PagedProblem s = p;
  const GdnDims &d = p.dims;
  s.dims.T = end - begin;
  s.q = rows(p.q, d.H * d.K, begin, end);
  s.k = rows(p.k, d.H * d.K, begin, end);
  s.v = rows(p.v, d.HV() * d.V, begin, end);
  s.g = rows(p.g, d.HV(), begin, end);
  s.beta = rows(p.beta, d.HV(), begin, end);
  if (!p.a.empty())
    s.a = rows(p.a, d.HV(), begin, end);
  return s;
}

PoolProblem sliceTokens(const PoolProblem &p, int64_t begin, int64_t end) {
  PoolProblem s = p;
  const GdnDims &d = p.dims;
  s.dims.T = end - begin;
  s.q = rows(p.q, d.H * d.K, begin, end);
  s.k = rows(p.k, d.H * d.K, begin, end);
  s.v = rows(p.v, d.HV() * d.V, begin, end);
  s.a = rows(p.a, d.HV(), begin, end);
  s.b = rows(p.b, d.HV(), begin, end);
  s.cuSeqlens = {0, end - begin};
  return s;
}

void setSinglePageTable(PagedProblem &p, std::vector<int64_t> pages,
                        int64_t lastPageLen, int64_t pageSize = 64) {
  p.cuSeqlens = {0, p.dims.T};
  p.pageIndptr = {0, static_cast<int64_t>(pages.size())};
  p.pageIndices = std::move(pages);
  p.lastPageLen = {lastPageLen};
  p.pageSize = pageSize;
}

/// One pool row / page of state.
std::vector<double> pageOf(const std::vector<double> &pool, const GdnDims &d,
                           int64_t page) {
  return rows(pool, d.stateElements(), page, page + 1);
}

double relErr(const std::vector<double> &a, const std::vector<double> &b) {
  return relativeL2Error(a, b);
}

testing::AssertionResult relativelyClose(const std::vector<double> &out,
                                         const std::vector<double> &ref,
                                         double tolerance) {
  const double err = relErr(out, ref);
  if (withinRelativeL2(err, tolerance))
    return testing::AssertionSuccess();
  return testing::AssertionFailure()
         << "relative L2 error " << err << " > " << tolerance;
}

#define EXPECT_REL_NEAR(out, ref, tol) EXPECT_TRUE(relativelyClose(out, ref, tol))

#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    const Status s_ = (expr);                                                  \
    ASSERT_TRUE(s_.ok()) << s_.message;                                        \
  } while (0)

const Algorithm kAlgorithms[] = {Algorithm::Recurrent, Algorithm::Chunked};

//===----------------------------------------------------------------------===//
// Gates
//===----------------------------------------------------------------------===//

TEST(GatesTest, Formulas) {
  EXPECT_NEAR(softplus(0.0), std::log(2.0), 1e-15);
  EXPECT_EQ(softplus(25.0), 25.0); // linear above 20
  EXPECT_NEAR(softplus(20.0), std::log1p(std::exp(20.0)), 1e-15);
  EXPECT_EQ(sigmoid(0.0), 0.5);
  EXPECT_NEAR(sigmoid(2.0), 1.0 / (1.0 + std::exp(-2.0)), 1e-16);
  EXPECT_EQ(sigmoid(-1000.0), 0.0); // no overflow, no NaN
  EXPECT_EQ(sigmoid(1000.0), 1.0);
  // A_log = log 2, a + dt_bias = log(e - 1): softplus = 1, g = -2.
  EXPECT_NEAR(rawLogDecay(std::log(std::exp(1.0) - 1.0) - 0.5, std::log(2.0), 0.5),
              -2.0, 1e-15);
  double row[2] = {3, 4};
  l2NormalizeInPlace(row, 2);
  EXPECT_NEAR(row[0], 3 / std::sqrt(25 + 1e-6), 1e-16);
  EXPECT_NEAR(row[1], 4 / std::sqrt(25 + 1e-6), 1e-16);
}

//===----------------------------------------------------------------------===//
// Metrics
//===----------------------------------------------------------------------===//

TEST(MetricsTest, RelativeL2) {
  // ||(3,4) - (0,0)|| / ... : out (1, 2) vs ref (1, 0): ||(0,2)|| / 1 = 2.
  EXPECT_DOUBLE_EQ(relativeL2Error(std::vector<double>{1, 2}, std::vector<double>{1, 0}), 2.0);
  EXPECT_EQ(relativeL2Error(std::vector<float>{3, 4}, std::vector<double>{3, 4}), 0.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(relativeL2Error(std::vector<double>{nan, 1}, std::vector<double>{1, 1})));
  EXPECT_FALSE(withinRelativeL2(relativeL2Error(std::vector<double>{nan}, std::vector<double>{1}), 1e9));
  EXPECT_EQ(relativeL2Error(std::vector<double>{inf}, std::vector<double>{1}), inf);
  EXPECT_EQ(relativeL2Error(std::vector<double>{0, 0}, std::vector<double>{0, 0}), 0.0);
  EXPECT_EQ(relativeL2Error(std::vector<double>{1e-30}, std::vector<double>{0}), inf);
  EXPECT_EQ(relativeL2Error(std::vector<double>{1}, std::vector<double>{1, 2}), inf);
  EXPECT_TRUE(withinRelativeL2(4e-3, 5e-3));
  EXPECT_FALSE(withinRelativeL2(6e-3, 5e-3));
}

//===----------------------------------------------------------------------===//
// Hand-worked cases (K = V = 1 unless said otherwise)
//===----------------------------------------------------------------------===//

/// Scalar paged problem: log gates, no l2norm, scale 1, one page.
PagedProblem scalarProblem(std::vector<double> q, std::vector<double> k,
                           std::vector<double> v, std::vector<double> g,
                           std::vector<double> beta) {
  PagedProblem p;
  p.dims = makeDims(static_cast<int64_t>(q.size()), 1, 1, 1, 1);
  p.q = q, p.k = k, p.v = v, p.g = g, p.beta = beta;
  p.scale = 1.0;
  p.gateDomain = GateDomain::Log;
  setSinglePageTable(p, {0}, p.dims.T);
  return p;
}

TEST(ReferenceHandTest, OneToken) {
  // M0 = 0; M1 = beta v k = 0.25 * 3 * 0.5 = 0.375; o = M1 q = 0.75.
  PagedProblem p = scalarProblem({2}, {0.5}, {3}, {std::log(0.5)}, {0.25});
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> pool = {123.0}; // overwritten: prefix is empty
    ReferenceResult r;
    ASSERT_OK(runPagedReference(p, pool, r, alg));
    EXPECT_NEAR(r.o[0], 0.75, 1e-12);
    EXPECT_NEAR(pool[0], 0.375, 1e-12);
    EXPECT_EQ(r.writtenRows, std::vector<int64_t>{0});
  }
}

TEST(ReferenceHandTest, TwoTokensWithDecay) {
  // Token 1 as above: M1 = 0.375, o1 = 0.75.
  // Token 2: alpha = 0.5, beta = 0.5, k = 2, v = 1, q = 1:
  //   M2 = 0.5 * 0.375 + 0.5 * (1 - 0.5 * 0.375 * 2) * 2
  //      = 0.1875 + 0.625 = 0.8125;  o2 = 0.8125.
  PagedProblem p = scalarProblem({2, 1}, {0.5, 2}, {3, 1},
                                 {std::log(0.5), std::log(0.5)}, {0.25, 0.5});
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> pool = {0.0};
    ReferenceResult r;
    ASSERT_OK(runPagedReference(p, pool, r, alg));
    EXPECT_NEAR(r.o[0], 0.75, 1e-12);
    EXPECT_NEAR(r.o[1], 0.8125, 1e-12);
    EXPECT_NEAR(pool[0], 0.8125, 1e-12);
  }
}

TEST(ReferenceHandTest, LinearAlphaZeroResetsWithoutNaN) {
  // Token 2 has alpha = 0: M2 = 0 * M1 + beta (v - 0) k = 0.5 * 1 * 2 = 1.
  PagedProblem p = scalarProblem({2, 1}, {0.5, 2}, {3, 1}, {0.5, 0.0}, {0.25, 0.5});
  p.gateDomain = GateDomain::Linear;
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> pool = {0.0};
    ReferenceResult r;
    ASSERT_OK(runPagedReference(p, pool, r, alg));
    EXPECT_NEAR(r.o[0], 0.75, 1e-12);
    EXPECT_NEAR(r.o[1], 1.0, 1e-12);
    EXPECT_NEAR(pool[0], 1.0, 1e-12);
  }
}

TEST(ReferenceHandTest, PoolTwoByTwoWithInitialState) {
  // K = V = 2, one head. Gates: A_log = 0, a + dt_bias = log(e - 1) so
  // softplus = 1 and g = -1, alpha = 1/e; b = 0 so beta = 1/2.
  // l2norm: q = (1, 0) -> (sq, 0), sq = 1/sqrt(1 + 1e-6);
  //         k = (3, 4) -> s (3, 4), s = 1/sqrt(25 + 1e-6).
  // M0 = [[1, 0], [0, 2]]  (V x K).  M0 k = s (3, 8).
  // M1 = alpha M0 + beta (v - alpha M0 k) k^T with v = (1, -1):
  //   r = v - alpha s (3, 8);  M1[i][j] = alpha M0[i][j] + 0.5 r_i s k_j.
  // o = K^-0.5 * M1 q = (1/sqrt 2) * sq * M1[:, 0].
  PoolProblem p;
  p.dims = makeDims(1, 1, 1, 2, 2);
  p.q = {1, 0};
  p.k = {3, 4};
  p.v = {1, -1};
  p.aLog = {0};
  p.dtBias = {0.25};
  p.a = {std::log(std::exp(1.0) - 1.0) - 0.25};
  p.b = {0};
  p.cuSeqlens = {0, 1};
  p.cacheIndices = {1};
  const double alpha = std::exp(-1.0), s = 1 / std::sqrt(25 + 1e-6),
               sq = 1 / std::sqrt(1 + 1e-6);
  const double r0 = 1 - alpha * s * 3, r1 = -1 - alpha * s * 8;
  const double M1[2][2] = {{alpha * 1 + 0.5 * r0 * s * 3, 0.5 * r0 * s * 4},
                           {0.5 * r1 * s * 3, alpha * 2 + 0.5 * r1 * s * 4}};
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> pool = {9, 9, 9, 9, 1, 0, 0, 2}; // rows 0 and 1
    ReferenceResult r;
    ASSERT_OK(runPoolReference(p, pool, r, alg));
    EXPECT_NEAR(pool[4], M1[0][0], 1e-12);
    EXPECT_NEAR(pool[5], M1[0][1], 1e-12);
    EXPECT_NEAR(pool[6], M1[1][0], 1e-12);
    EXPECT_NEAR(pool[7], M1[1][1], 1e-12);
    EXPECT_NEAR(r.o[0], sq * M1[0][0] / std::sqrt(2.0), 1e-12);
    EXPECT_NEAR(r.o[1], sq * M1[1][0] / std::sqrt(2.0), 1e-12);
    EXPECT_EQ(pool[0], 9); // other rows untouched
    EXPECT_EQ(r.writtenRows, std::vector<int64_t>{1});
  }
}

//===----------------------------------------------------------------------===//
// Properties on random inputs
//===----------------------------------------------------------------------===//

TEST(ReferencePropertyTest, BetaZeroOnlyDecays) {
  // With beta = 0: M_t = exp(g_1 + ... + g_t) M_0, o_t = scale M_t q_t.
  const GdnDims d = makeDims(40, 2, 2, 8, 8);
  PagedProblem p = randomPaged(d, 7);
  std::fill(p.beta.begin(), p.beta.end(), 0.0);
  p.useQkL2norm = false;
  // Prefix of one full page (id 0) holds M_0; the new tokens go to page 1.
  p.cuSeqlens = {0, d.T};
  p.pageIndices = {0, 1};
  p.pageIndptr = {0, 2};
  p.lastPageLen = {d.T};
  p.pageSize = 64;
  Rng rng(8);
  const std::vector<double> initial = rng.uniforms(2 * d.stateElements(), -1, 1);
  const double scale = 1 / std::sqrt(double(d.K));
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> pool = initial;
    ReferenceResult r;
    ASSERT_OK(runPagedReference(p, pool, r, alg));
    std::vector<double> expectedO(d.T * d.HV() * d.V), expectedState(d.stateElements());
    for (int64_t hv = 0; hv < d.HV(); ++hv) {
      const double *M0 = &initial[hv * d.V * d.K];
      double logDecay = 0;
      for (int64_t t = 0; t < d.T; ++t) {
        logDecay += p.g[t * d.HV() + hv];
        const double *q = &p.q[(t * d.H + hv / d.G) * d.K];
        for (int64_t i = 0; i < d.V; ++i) {
          double dot = 0;
          for (int64_t j = 0; j < d.K; ++j)
            dot += M0[i * d.K + j] * q[j];
          expectedO[(t * d.HV() + hv) * d.V + i] = scale * std::exp(logDecay) * dot;
        }
      }
      for (int64_t e = 0; e < d.V * d.K; ++e)
        expectedState[hv * d.V * d.K + e] = std::exp(logDecay) * M0[e];
    }
    EXPECT_REL_NEAR(r.o, expectedO, 1e-12);
    EXPECT_REL_NEAR(pageOf(pool, d, 1), expectedState, 1e-12);
    EXPECT_EQ(pageOf(pool, d, 0), pageOf(initial, d, 0)); // prefix page only read
  }
}

TEST(ReferencePropertyTest, PoolSplitEqualsWhole) {
  const GdnDims d = makeDims(40, 2, 2, 8, 8);
  PoolProblem whole = randomPool(d, 11);
  whole.cuSeqlens = {0, d.T};
  whole.cacheIndices = {2};
  Rng rng(12);
  const std::vector<double> initial = rng.uniforms(3 * d.stateElements(), -1, 1);
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> poolWhole = initial, poolSplit = initial;
    ReferenceResult rWhole, r1, r2;
    ASSERT_OK(runPoolReference(whole, poolWhole, rWhole, alg, 8));
    ASSERT_OK(runPoolReference(sliceTokens(whole, 0, 17), poolSplit, r1, alg, 8));
    ASSERT_OK(runPoolReference(sliceTokens(whole, 17, 40), poolSplit, r2, alg, 8));
    std::vector<double> oSplit = r1.o;
    oSplit.insert(oSplit.end(), r2.o.begin(), r2.o.end());
    EXPECT_REL_NEAR(oSplit, rWhole.o, 1e-12);
    EXPECT_REL_NEAR(poolSplit, poolWhole, 1e-12);
    EXPECT_EQ(pageOf(poolWhole, d, 0), pageOf(initial, d, 0));
  }
}

TEST(ReferencePropertyTest, PoolBatchEqualsSeparateCalls) {
  // Three sequences (one empty) in one call == each alone.
  const GdnDims d = makeDims(30, 2, 2, 8, 8);
  PoolProblem batch = randomPool(d, 13);
  batch.cuSeqlens = {0, 12, 12, 30};
  batch.cacheIndices = {3, 0, 1};
  Rng rng(14);
  const std::vector<double> initial = rng.uniforms(4 * d.stateElements(), -1, 1);
  std::vector<double> poolBatch = initial, poolSeparate = initial;
  ReferenceResult rBatch, rA, rB;
  ASSERT_OK(runPoolReference(batch, poolBatch, rBatch));
  EXPECT_EQ(rBatch.writtenRows, (std::vector<int64_t>{3, 1}));
  PoolProblem a = sliceTokens(batch, 0, 12), b = sliceTokens(batch, 12, 30);
  a.cacheIndices = {3};
  b.cacheIndices = {1};
  ASSERT_OK(runPoolReference(a, poolSeparate, rA));
  ASSERT_OK(runPoolReference(b, poolSeparate, rB));
  std::vector<double> oSeparate = rA.o;
  oSeparate.insert(oSeparate.end(), rB.o.begin(), rB.o.end());
  EXPECT_EQ(oSeparate, rBatch.o);
  EXPECT_EQ(poolSeparate, poolBatch);
  EXPECT_EQ(pageOf(poolBatch, d, 0), pageOf(initial, d, 0)); // empty seq's row
}

/// Runs `full` (one sequence, prefix 0, pages {0..3}, page size 64) in one
/// call and as two calls split after `firstPart` tokens; states and outputs
/// must agree.
void expectPagedSplitMatches(int64_t firstPart, Algorithm alg) {
  const int64_t total = 200, pageSize = 64; // 4 pages, last holds 8 tokens
  const GdnDims d = makeDims(total, 2, 2, 8, 8);
  PagedProblem full = randomPaged(d, 21);
  // Shuffled page ids: sequence page j lives at pool page ids[j].
  const std::vector<int64_t> ids = {5, 2, 7, 0};
  setSinglePageTable(full, ids, total - 3 * pageSize, pageSize);
  const size_t poolPages = 8;
  std::vector<double> poolFull(poolPages * d.stateElements(), -7.0);
  std::vector<double> poolSplit = poolFull;
  ReferenceResult rFull, r1, r2;
  ASSERT_OK(runPagedReference(full, poolFull, rFull, alg));
  EXPECT_EQ(rFull.writtenRows, ids);

  PagedProblem first = sliceTokens(full, 0, firstPart);
  const int64_t firstPages = (firstPart + pageSize - 1) / pageSize;
  setSinglePageTable(first, std::vector<int64_t>(ids.begin(), ids.begin() + firstPages),
                     firstPart - (firstPages - 1) * pageSize, pageSize);
  PagedProblem second = sliceTokens(full, firstPart, total);
  setSinglePageTable(second, ids, total - 3 * pageSize, pageSize);
  ASSERT_OK(runPagedReference(first, poolSplit, r1, alg));
  ASSERT_OK(runPagedReference(second, poolSplit, r2, alg));

  // Pages never written in the second call are only read.
  std::set<int64_t> written(r2.writtenRows.begin(), r2.writtenRows.end());
  for (int64_t j = 0; j < firstPart / pageSize; ++j)
    EXPECT_EQ(written.count(ids[j]), 0u) << "prefix page " << j << " written";

  std::vector<double> oSplit = r1.o;
  oSplit.insert(oSplit.end(), r2.o.begin(), r2.o.end());
  EXPECT_REL_NEAR(oSplit, rFull.o, 1e-12);
  for (int64_t id : ids)
    EXPECT_REL_NEAR(pageOf(poolSplit, d, id), pageOf(poolFull, d, id), 1e-12)
        << "page " << id;
  // Pool pages outside the table keep their fill value.
  EXPECT_EQ(pageOf(poolSplit, d, 1), std::vector<double>(d.stateElements(), -7.0));
}

TEST(ReferencePropertyTest, PagedPrefixAtPageBoundary) {
  for (Algorithm alg : kAlgorithms)
    expectPagedSplitMatches(128, alg);
}

TEST(ReferencePropertyTest, PagedPrefixMidPageContinuesInPlace) {
  for (Algorithm alg : kAlgorithms) {
    expectPagedSplitMatches(100, alg); // mid-page and mid-chunk
    expectPagedSplitMatches(1, alg);
    expectPagedSplitMatches(199, alg); // one new token in the last page
  }
}

TEST(ReferencePropertyTest, LinearDomainEqualsLogDomain) {
  const GdnDims d = makeDims(40, 2, 2, 8, 8);
  PagedProblem logDomain = randomPaged(d, 31, -3, 0);
  setSinglePageTable(logDomain, {0}, d.T);
  PagedProblem linear = logDomain;
  linear.gateDomain = GateDomain::Linear;
  for (double &g : linear.g)
    g = std::exp(g);
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> poolLog(d.stateElements()), poolLinear(d.stateElements());
    ReferenceResult rLog, rLinear;
    ASSERT_OK(runPagedReference(logDomain, poolLog, rLog, alg));
    ASSERT_OK(runPagedReference(linear, poolLinear, rLinear, alg));
    EXPECT_REL_NEAR(rLinear.o, rLog.o, 1e-12);
    EXPECT_REL_NEAR(poolLinear, poolLog, 1e-12);
  }
}

TEST(ReferencePropertyTest, BetaLogitEqualsBeta) {
  const GdnDims d = makeDims(40, 2, 2, 8, 8);
  PagedProblem plain = randomPaged(d, 41);
  setSinglePageTable(plain, {0}, d.T);
  PagedProblem logit = plain;
  logit.betaIsLogit = true;
  for (double &b : logit.beta)
    b = std::log(b / (1 - b));
  std::vector<double> poolPlain(d.stateElements()), poolLogit(d.stateElements());
  ReferenceResult rPlain, rLogit;
  ASSERT_OK(runPagedReference(plain, poolPlain, rPlain));
  ASSERT_OK(runPagedReference(logit, poolLogit, rLogit));
  EXPECT_REL_NEAR(rLogit.o, rPlain.o, 1e-12);
  EXPECT_REL_NEAR(poolLogit, poolPlain, 1e-12);
}

TEST(ReferencePropertyTest, GateInKernelEqualsPrecomputedGate) {
  const GdnDims d = makeDims(40, 2, 2, 8, 8);
  PagedProblem raw = randomPaged(d, 51);
  setSinglePageTable(raw, {0}, d.T);
  Rng rng(52);
  raw.useGateInKernel = true;
  raw.a = rng.uniforms(d.T * d.HV(), -3, 3);
  raw.aLog = rng.uniforms(d.HV(), -1, 1);
  raw.dtBias = rng.uniforms(d.HV(), -1, 1);
  raw.g.clear();
  PagedProblem given = raw;
  given.useGateInKernel = false;
  given.gateDomain = GateDomain::Log;
  given.g.resize(d.T * d.HV());
  for (int64_t i = 0; i < d.T * d.HV(); ++i)
    given.g[i] = rawLogDecay(raw.a[i], raw.aLog[i % d.HV()], raw.dtBias[i % d.HV()]);
  std::vector<double> poolRaw(d.stateElements()), poolGiven(d.stateElements());
  ReferenceResult rRaw, rGiven;
  ASSERT_OK(runPagedReference(raw, poolRaw, rRaw));
  ASSERT_OK(runPagedReference(given, poolGiven, rGiven));
  EXPECT_EQ(rRaw.o, rGiven.o);
  EXPECT_EQ(poolRaw, poolGiven);
}

TEST(ReferencePropertyTest, GqaHeadMappingEqualsRepeatedHeads) {
  // HV = H * G with value head hv reading q/k head hv / G equals G = 1 with
  // every q/k head repeated G times.
  const GdnDims d = makeDims(40, 2, 2, 8, 8);
  PoolProblem grouped = randomPool(d, 61);
  grouped.cuSeqlens = {0, d.T};
  grouped.cacheIndices = {0};
  PoolProblem repeated = grouped;
  repeated.dims.H = d.HV();
  repeated.dims.G = 1;
  repeated.q.clear();
  repeated.k.clear();
  for (int64_t t = 0; t < d.T; ++t)
    for (int64_t hv = 0; hv < d.HV(); ++hv)
      for (int64_t j = 0; j < d.K; ++j) {
        repeated.q.push_back(grouped.q[(t * d.H + hv / d.G) * d.K + j]);
        repeated.k.push_back(grouped.k[(t * d.H + hv / d.G) * d.K + j]);
      }
  Rng rng(62);
  const std::vector<double> initial = rng.uniforms(d.stateElements(), -1, 1);
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> poolGrouped = initial, poolRepeated = initial;
    ReferenceResult rGrouped, rRepeated;
    ASSERT_OK(runPoolReference(grouped, poolGrouped, rGrouped, alg));
    ASSERT_OK(runPoolReference(repeated, poolRepeated, rRepeated, alg));
    EXPECT_EQ(rGrouped.o, rRepeated.o);
    EXPECT_EQ(poolGrouped, poolRepeated);
  }
}

//===----------------------------------------------------------------------===//
// Which pages are written
//===----------------------------------------------------------------------===//

TEST(ReferencePagesTest, ZeroLengthSequenceWritesNothing) {
  const GdnDims d = makeDims(70, 2, 2, 8, 8);
  PagedProblem p = randomPaged(d, 71);
  // Sequence 1 has no new tokens but owns pages 3, 4 (prefix 64 + 10).
  p.cuSeqlens = {0, 30, 30, 70};
  p.pageIndices = {0, 3, 4, 1, 2};
  p.pageIndptr = {0, 1, 3, 5};
  p.lastPageLen = {30, 10, 6}; // seq 2: 64 + 6 = 70 tokens, prefix 30
  p.pageSize = 64;
  const std::vector<double> initial(5 * d.stateElements(), 0.5);
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> pool = initial;
    ReferenceResult r;
    ASSERT_OK(runPagedReference(p, pool, r, alg));
    // seq 0 -> page 0 (final); seq 2: tokens 30..69, boundary after 63 ->
    // page 1, final -> page 2.
    EXPECT_EQ(r.writtenRows, (std::vector<int64_t>{0, 1, 2}));
    EXPECT_EQ(pageOf(pool, d, 3), pageOf(initial, d, 3));
    EXPECT_EQ(pageOf(pool, d, 4), pageOf(initial, d, 4));
  }
}

TEST(ReferencePagesTest, WrittenPagesAreBoundariesAndLastPage) {
  // Prefix 100, 200 new tokens, page size 64: L = 300 = 4*64 + 44, 5 pages.
  // Page 0 (tokens 0..63) is prefix only: never written. Page 1 holds the
  // last prefix token (99): initial state, continued in place and written
  // after token 127; pages 2, 3 after 191, 255; page 4 is the final write.
  const GdnDims d = makeDims(200, 2, 2, 8, 8);
  PagedProblem p = randomPaged(d, 81);
  const std::vector<int64_t> ids = {9, 4, 6, 1, 3};
  setSinglePageTable(p, ids, 44);
  Rng rng(82);
  const std::vector<double> initial = rng.uniforms(10 * d.stateElements(), -1, 1);
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> pool = initial;
    ReferenceResult r;
    ASSERT_OK(runPagedReference(p, pool, r, alg));
    EXPECT_EQ(r.writtenRows, (std::vector<int64_t>{4, 6, 1, 3}));
    for (int64_t page = 0; page < 10; ++page) {
      const bool written = page == 4 || page == 6 || page == 1 || page == 3;
      if (written)
        EXPECT_NE(pageOf(pool, d, page), pageOf(initial, d, page)) << page;
      else
        EXPECT_EQ(pageOf(pool, d, page), pageOf(initial, d, page)) << page;
    }
  }
}

TEST(ReferencePagesTest, SharedPrefixPageReadByBothWrittenByNeither) {
  // Two sequences share a full prefix page (id 0, 64 tokens), then write
  // their own pages 1 and 2. Each must equal running it alone.
  const GdnDims d = makeDims(50, 2, 2, 8, 8);
  PagedProblem both = randomPaged(d, 91);
  both.cuSeqlens = {0, 20, 50};
  both.pageIndices = {0, 1, 0, 2};
  both.pageIndptr = {0, 2, 4};
  both.lastPageLen = {20, 30};
  both.pageSize = 64;
  Rng rng(92);
  const std::vector<double> initial = rng.uniforms(3 * d.stateElements(), -1, 1);
  for (Algorithm alg : kAlgorithms) {
    std::vector<double> pool = initial;
    ReferenceResult r;
    ASSERT_OK(runPagedReference(both, pool, r, alg));
    EXPECT_EQ(r.writtenRows, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(pageOf(pool, d, 0), pageOf(initial, d, 0));

    std::vector<double> poolAlone = initial;
    PagedProblem first = sliceTokens(both, 0, 20);
    setSinglePageTable(first, {0, 1}, 20);
    PagedProblem second = sliceTokens(both, 20, 50);
    setSinglePageTable(second, {0, 2}, 30);
    ReferenceResult r1, r2;
    ASSERT_OK(runPagedReference(first, poolAlone, r1, alg));
    ASSERT_OK(runPagedReference(second, poolAlone, r2, alg));
    std::vector<double> oAlone = r1.o;
    oAlone.insert(oAlone.end(), r2.o.begin(), r2.o.end());
    EXPECT_EQ(oAlone, r.o);
    EXPECT_EQ(poolAlone, pool);
    // Both really read page 0: their outputs differ from a zero start.
    std::vector<double> poolZero(3 * d.stateElements(), 0.0);
    ReferenceResult rZero;
    PagedProblem fresh = sliceTokens(both, 0, 20);
    setSinglePageTable(fresh, {1}, 20);
    ASSERT_OK(runPagedReference(fresh, poolZero, rZero, alg));
    EXPECT_GT(relErr(rZero.o, r1.o), 1e-3);
  }
}

TEST(ReferencePagesTest, InvalidTableIsRefusedBeforeWriting) {
  const GdnDims d = makeDims(10, 1, 1, 8, 8);
  PagedProblem p = randomPaged(d, 93);
  setSinglePageTable(p, {0}, 300); // last_page_len > page_size
  std::vector<double> pool(d.stateElements(), 1.0);
  ReferenceResult r;
  Status s = runPagedReference(p, pool, r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("last_page_len[0] = 300"), std::string::npos) << s.message;
  EXPECT_EQ(pool, std::vector<double>(d.stateElements(), 1.0));
}

TEST(ReferenceInputsTest, ShapeErrorsNameTheTensor) {
  const GdnDims d = makeDims(10, 2, 2, 8, 8);
  PoolProblem p = randomPool(d, 94);
  p.cuSeqlens = {0, 10};
  p.cacheIndices = {0};
  p.v.pop_back();
  std::vector<double> pool(d.stateElements());
  ReferenceResult r;
  Status s = runPoolReference(p, pool, r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("v has 319 elements"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("HV=4"), std::string::npos) << s.message;

  p = randomPool(d, 94);
  p.cuSeqlens = {0, 10};
  p.cacheIndices = {0};
  pool.push_back(0);
  s = runPoolReference(p, pool, r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("state_pool"), std::string::npos) << s.message;

  pool.pop_back();
  p.cuSeqlens = {0, 9};
  s = runPoolReference(p, pool, r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("cu_seqlens"), std::string::npos) << s.message;
}

//===----------------------------------------------------------------------===//
// The chunked WY form against the recurrence
//===----------------------------------------------------------------------===//

struct ChunkCase {
  int64_t length;
  double gMin;
};
void PrintTo(const ChunkCase &c, std::ostream *os) {
  *os << "{length " << c.length << ", gMin " << c.gMin << "}";
}

class ChunkedMatchesRecurrence : public testing::TestWithParam<ChunkCase> {};

TEST_P(ChunkedMatchesRecurrence, Pool) {
  const ChunkCase c = GetParam();
  const GdnDims d = makeDims(c.length, 2, 2, 16, 16);
  PoolProblem p = randomPool(d, 100 + c.length);
  // Map a to a log decay g uniform in [gMin, 0] by inverting softplus
  // (A_log = 0, dt_bias = 0): a = log(expm1(-g)).
  Rng rng(200 + c.length);
  std::fill(p.aLog.begin(), p.aLog.end(), 0.0);
  std::fill(p.dtBias.begin(), p.dtBias.end(), 0.0);
  for (double &a : p.a)
    a = std::log(std::expm1(-rng.uniform(c.gMin, -1e-3)));
  p.cuSeqlens = {0, c.length};
  p.cacheIndices = {1};
  const std::vector<double> initial = rng.uniforms(2 * d.stateElements(), -1, 1);
  std::vector<double> poolRec = initial, poolChunk = initial;
  ReferenceResult rRec, rChunk;
  ASSERT_OK(runPoolReference(p, poolRec, rRec, Algorithm::Recurrent));
  ASSERT_OK(runPoolReference(p, poolChunk, rChunk, Algorithm::Chunked));
  EXPECT_REL_NEAR(rChunk.o, rRec.o, 1e-10);
  EXPECT_REL_NEAR(pageOf(poolChunk, d, 1), pageOf(poolRec, d, 1), 1e-10);
}

TEST_P(ChunkedMatchesRecurrence, PagedMidChunkPrefix) {
  // Prefix 100 (mid-page, mid-chunk): the first chunk has 28 tokens.
  const ChunkCase c = GetParam();
  const int64_t prefix = 100, pageSize = 64;
  const GdnDims d = makeDims(c.length, 2, 2, 16, 16);
  PagedProblem p = randomPaged(d, 300 + c.length, c.gMin, 0);
  const int64_t total = prefix + c.length;
  const int64_t numPages = (total + pageSize - 1) / pageSize;
  std::vector<int64_t> ids;
  for (int64_t j = 0; j < numPages; ++j)
    ids.push_back(numPages - 1 - j); // reversed order
  setSinglePageTable(p, ids, total - (numPages - 1) * pageSize, pageSize);
  Rng rng(400 + c.length);
  const std::vector<double> initial = rng.uniforms(numPages * d.stateElements(), -1, 1);
  std::vector<double> poolRec = initial, poolChunk = initial;
  ReferenceResult rRec, rChunk;
  ASSERT_OK(runPagedReference(p, poolRec, rRec, Algorithm::Recurrent));
  ASSERT_OK(runPagedReference(p, poolChunk, rChunk, Algorithm::Chunked));
  EXPECT_EQ(rChunk.writtenRows, rRec.writtenRows);
  EXPECT_REL_NEAR(rChunk.o, rRec.o, 1e-10);
  for (int64_t page : rRec.writtenRows)
    EXPECT_REL_NEAR(pageOf(poolChunk, d, page), pageOf(poolRec, d, page), 1e-10)
        << "page " << page;
}

INSTANTIATE_TEST_SUITE_P(
    Lengths, ChunkedMatchesRecurrence,
    testing::Values(ChunkCase{1, -1}, ChunkCase{63, -1}, ChunkCase{65, -1},
                    ChunkCase{200, -1}, ChunkCase{1, -20}, ChunkCase{63, -20},
                    ChunkCase{65, -20}, ChunkCase{200, -20}),
    [](const testing::TestParamInfo<ChunkCase> &info) {
      return "T" + std::to_string(info.param.length) + "_gmin" +
             std::to_string(static_cast<int>(-info.param.gMin));
    });

TEST(ChunkedTest, LinearAlphaZeroInsideChunk) {
  // alpha = 0 mid-chunk gives g = -inf; the WY form must not produce NaN.
  const GdnDims d = makeDims(70, 2, 2, 8, 8);
  PagedProblem p = randomPaged(d, 501);
  p.gateDomain = GateDomain::Linear;
  for (double &g : p.g)
    g = std::exp(g);
  p.g[10 * d.HV() + 1] = 0.0;
  p.g[64 * d.HV() + 0] = 0.0; // first token of the second chunk
  setSinglePageTable(p, {0, 1}, 6);
  std::vector<double> poolRec(2 * d.stateElements()), poolChunk = poolRec;
  ReferenceResult rRec, rChunk;
  ASSERT_OK(runPagedReference(p, poolRec, rRec, Algorithm::Recurrent));
  ASSERT_OK(runPagedReference(p, poolChunk, rChunk, Algorithm::Chunked));
  EXPECT_REL_NEAR(rChunk.o, rRec.o, 1e-10);
  EXPECT_REL_NEAR(poolChunk, poolRec, 1e-10);
}

} // namespace
