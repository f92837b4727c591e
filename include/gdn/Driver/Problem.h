//===- Problem.h - one GDN prefill call as gdn-run sees it ------*- C++ -*-===//
//
// A call is a set of named tensors (the names of the seeds) plus scalar flags.
// The interface is chosen by the tensors present: `cache_indices` means the
// pool interface, `page_indices` the paged one.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DRIVER_PROBLEM_H
#define GDN_DRIVER_PROBLEM_H

#include "gdn/Reference/Reference.h"
#include "gdn/TensorIO/SafeTensors.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace gdn::run {

enum class Interface { Pool, Paged };

/// Scalars of a call (command-line flags).
struct CallFlags {
  int64_t pageSize = 256;
  // Tokens per chunk: 32, 64 or 128; 0: the schedule's chunk=, else 64
  // (run::bindChunkSize decides before a launch).
  int64_t chunkSize = 0;
  std::optional<double> scale;
  GateDomain gateDomain = GateDomain::Linear; // paged, without gate in kernel
  bool useGateInKernel = false;
  bool betaIsLogit = false;
  bool qkL2norm = false;
};

struct Problem {
  Interface interface = Interface::Paged;
  TensorMap tensors;
  CallFlags flags;
  GdnDims dims; // filled by validateProblem
  // Where the tensors live on a device and only their shapes are known
  // here: the index tensors' contents are not read, and the longest
  // sequence is taken to be all T tokens (launch grids and per-sequence
  // workspaces are sized for that).
  bool shapesOnly = false;
  int64_t batch() const;
  /// New tokens of the longest sequence (T when shapesOnly).
  int64_t longestSequence() const;
};

/// How gdn-run makes a random problem (the default problem is one preset).
struct GenConfig {
  Interface interface = Interface::Paged;
  int64_t H = 16, HV = 32, K = 128, V = 128;
  DType dtype = DType::BF16;
  DType stateDtype = DType::F32;  // the state pool's storage
  std::vector<int64_t> seqlens;  // new tokens per sequence
  std::vector<int64_t> prefixes; // paged: tokens already in the pages
  bool shufflePages = true;      // page ids in random order
  bool sharedPrefix = false;     // sequences 0 and 1 share full prefix pages
  std::string gate = "raw";      // raw | log | linear
  double maxDecay = 0.5;         // log / linear gates: g in [-maxDecay, 0]
  int64_t sparePages = 3;        // pool pages (rows) no sequence owns
  // Numerical hazards (all off by default).
  double gateScale = 1.0;        // raw gates: a ~ N(0, gateScale)
  double betaValue = -1;         // >= 0: every beta (not a logit) is this
  double qkScale = 1.0;          // q and k multiplied by this
  int64_t zeroQkEvery = 0;       // > 0: q / k rows of every n-th token zero
  int64_t zeroAlphaEvery = 0;    // > 0, linear gates: alpha = 0 every n-th
};

/// The built-in default problem: Qwen3-Next heads, mixed lengths, a paged
/// pool with a mid-page prefix, a page-aligned prefix and a zero-length
/// sequence; gates, beta logits and l2norm in the kernel.
GenConfig defaultConfig();

/// Fresh random inputs for `config` under `flags` (page size, l2norm, beta
/// logit, scale); the gate flags are set from `config.gate`.
Status generateProblem(const GenConfig &config, const CallFlags &flags,
                       std::mt19937_64 &rng, Problem &problem);

/// Checks names, dtypes, shapes and (unless shapesOnly) the page table /
/// pool indices; fills `problem.dims`. Every message names the tensor and
/// what was expected.
Status validateProblem(Problem &problem);

/// Refuses gate values a kernel would turn into NaN or growth without a
/// word: any non-finite a, b, g, beta, A_log or dt_bias, a linear-domain
/// alpha outside [0, 1], a log-domain g above 0. Needs a validated problem.
Status checkGateValues(const Problem &problem);

/// The float64 evaluation (the literal recurrence) of a validated problem.
/// `pool` (doubles) starts as the input pool and is updated in place.
Status referenceRun(const Problem &problem, std::vector<double> &pool,
                    ReferenceResult &result);

/// Pool rows / pages the call must write, and those it reads first.
struct WriteSet {
  std::vector<int64_t> written; // distinct, ascending
  std::vector<int64_t> read;    // initial-state rows / pages
};
Status expectedWrites(const Problem &problem, WriteSet &writes);

} // namespace gdn::run

#endif // GDN_DRIVER_PROBLEM_H
