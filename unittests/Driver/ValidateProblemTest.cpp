//===- ValidateProblemTest.cpp - gdn-run refuses bad calls clearly --------===//
//
// Each case breaks one thing in a valid random problem and expects a refusal
// whose message names the tensor and the rule, with every tensor (the state
// pool above all) left byte for byte as it was.
//
//===----------------------------------------------------------------------===//

#include "gdn/Driver/Problem.h"

#include <gtest/gtest.h>

#include <functional>

using namespace gdn;
using namespace gdn::run;

namespace {

Problem smallProblem(Interface interface) {
  GenConfig cfg;
  cfg.interface = interface;
  cfg.H = 1;
  cfg.HV = 2;
  cfg.K = cfg.V = 64;
  cfg.seqlens = {70, 20};
  cfg.prefixes = {0, 300};
  CallFlags flags;
  flags.qkL2norm = true;
  std::mt19937_64 rng(7);
  Problem p;
  EXPECT_TRUE(generateProblem(cfg, flags, rng, p).ok());
  return p;
}

void setIndex(HostTensor &t, size_t i, int64_t value) {
  std::vector<int64_t> v = t.toIndices();
  v[i] = value;
  t = HostTensor::fromIndices(t.dtype, t.shape, v);
}

struct Case {
  const char *what;
  Interface interface;
  std::function<void(Problem &)> breakIt;
  const char *expected; // a fragment of the message
};

class Refusal : public ::testing::TestWithParam<Case> {};

TEST_P(Refusal, NamesTheProblemAndTouchesNothing) {
  const Case &c = GetParam();
  Problem p = smallProblem(c.interface);
  ASSERT_TRUE(validateProblem(p).ok());
  c.breakIt(p);
  TensorMap before = p.tensors;
  Status s = validateProblem(p);
  ASSERT_FALSE(s.ok()) << c.what;
  EXPECT_NE(s.message.find(c.expected), std::string::npos)
      << c.what << ": got \"" << s.message << "\"";
  ASSERT_EQ(before.size(), p.tensors.size());
  for (const auto &[name, t] : before)
    EXPECT_EQ(t.data, p.tensors[name].data) << name << " changed";
}

const Case kCases[] = {
    {"last_page_len too big", Interface::Paged,
     [](Problem &p) { setIndex(p.tensors["last_page_len"], 1, 300); },
     "last_page_len[1] = 300 is outside [1, page_size=256]"},
    {"last_page_len zero", Interface::Paged,
     [](Problem &p) { setIndex(p.tensors["last_page_len"], 0, 0); },
     "last_page_len[0] = 0"},
    {"prefix longer than sequence", Interface::Paged,
     [](Problem &p) { setIndex(p.tensors["last_page_len"], 0, 10); },
     "the prefix would be negative"},
    {"page id outside pool", Interface::Paged,
     [](Problem &p) { setIndex(p.tensors["page_indices"], 0, -1); },
     "page_indices[0] = -1 is outside"},
    {"page written twice", Interface::Paged,
     [](Problem &p) {
       int64_t shared = p.tensors["page_indices"].indexAt(2);
       setIndex(p.tensors["page_indices"], 0, shared);
     },
     "is written by sequence 0"},
    {"page_indptr decreasing", Interface::Paged,
     [](Problem &p) { setIndex(p.tensors["page_indptr"], 1, 0); },
     "page_indptr"},
    {"cu_seqlens past T", Interface::Paged,
     [](Problem &p) { setIndex(p.tensors["cu_seqlens"], 2, 1000); },
     "cu_seqlens"},
    {"page size not a multiple of 64", Interface::Paged,
     [](Problem &p) { p.flags.pageSize = 100; }, "page_size"},
    {"chunk size", Interface::Paged,
     [](Problem &p) { p.flags.chunkSize = 96; },
     "chunk size (--chunk-size, chunk_size) 96 is not supported: expected "
     "32, 64 or 128"},
    {"missing beta", Interface::Paged,
     [](Problem &p) { p.tensors.erase("beta"); }, "missing tensor 'beta'"},
    {"unknown tensor", Interface::Paged,
     [](Problem &p) { p.tensors["bias"] = HostTensor::zeros(DType::F32, {2}); },
     "unexpected tensor 'bias'"},
    {"both interfaces", Interface::Paged,
     [](Problem &p) {
       p.tensors["cache_indices"] = HostTensor::zeros(DType::I64, {2});
     },
     "both cache_indices"},
    {"q in f32", Interface::Paged,
     [](Problem &p) {
       HostTensor &q = p.tensors["q"];
       q = HostTensor::fromDoubles(DType::F32, q.shape, q.toDoubles());
     },
     "tensor 'q' is F32[90, 1, 64]; expected dtype BF16 or F16"},
    {"k of another shape", Interface::Paged,
     [](Problem &p) { p.tensors["k"] = HostTensor::zeros(DType::BF16, {90, 1, 32}); },
     "k"},
    {"head size 257", Interface::Paged,
     [](Problem &p) {
       p.tensors["q"] = HostTensor::zeros(DType::BF16, {90, 1, 257});
       p.tensors["k"] = HostTensor::zeros(DType::BF16, {90, 1, 257});
     },
     "head size K = 257 (q BF16[90, 1, 257], v BF16[90, 2, 64]): expected 1 "
     "to 256"},
    {"HV not a multiple of H", Interface::Paged,
     [](Problem &p) {
       p.tensors["q"] = HostTensor::zeros(DType::BF16, {90, 3, 64});
       p.tensors["k"] = HostTensor::zeros(DType::BF16, {90, 3, 64});
     },
     "not a positive multiple of H=3"},
    {"state pool in f64", Interface::Paged,
     [](Problem &p) {
       HostTensor &s = p.tensors["state_pool"];
       s = HostTensor::zeros(DType::F64, s.shape);
     },
     "state_pool"},
    {"state pool of another head size", Interface::Paged,
     [](Problem &p) {
       HostTensor &s = p.tensors["state_pool"];
       s = HostTensor::zeros(DType::F32, {s.shape[0], 2, 64, 128});
     },
     "must be [P, HV=2, V=64, K=64]"},
    {"gate of the wrong length", Interface::Paged,
     [](Problem &p) { p.tensors["g"] = HostTensor::zeros(DType::F32, {89, 2}); },
     "g"},
    {"index array in f32", Interface::Paged,
     [](Problem &p) { p.tensors["page_indptr"] = HostTensor::zeros(DType::F32, {3}); },
     "page_indptr"},
    {"cache index outside pool", Interface::Pool,
     [](Problem &p) { setIndex(p.tensors["cache_indices"], 1, 99); },
     "cache_indices[1]"},
    {"cache index twice", Interface::Pool,
     [](Problem &p) {
       setIndex(p.tensors["cache_indices"], 1,
                p.tensors["cache_indices"].indexAt(0));
     },
     "cache_indices"},
    {"pool interface without A_log", Interface::Pool,
     [](Problem &p) { p.tensors.erase("A_log"); }, "missing tensor 'A_log'"},
};

INSTANTIATE_TEST_SUITE_P(BadCalls, Refusal, ::testing::ValuesIn(kCases),
                         [](const auto &info) {
                           std::string n = info.param.what;
                           for (char &ch : n)
                             if (!isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return n;
                         });

TEST(Refusal, TensorsTooLargeForThirtyTwoBitOffsets) {
  Problem p = smallProblem(Interface::Paged);
  // A header-only tensor: the size check runs before any data is read.
  HostTensor huge;
  huge.dtype = DType::F32;
  huge.shape = {1 << 16, 1 << 16};
  p.tensors["g"] = huge;
  Status s = validateProblem(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("must fit in 32 bits"), std::string::npos)
      << s.message;
}

} // namespace
