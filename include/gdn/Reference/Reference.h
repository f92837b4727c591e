//===- Reference.h - Float64 reference for GDN chunked prefill --*- C++ -*-===//
//
// Evaluates SPEC.md in double precision on inputs already rounded from their
// storage dtype. Two algorithms over the same scheduling:
//   Recurrent: the recurrence, token by token (the definition);
//   Chunked:   the WY form with SPEC.md's chunk alignment (the executable
//              spec of the compiled kernels).
//
//===----------------------------------------------------------------------===//
#ifndef GDN_REFERENCE_REFERENCE_H
#define GDN_REFERENCE_REFERENCE_H

#include "gdn/TensorIO/Status.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gdn {

enum class Algorithm { Recurrent, Chunked };
enum class GateDomain { Log, Linear };

constexpr int64_t kDefaultChunkSize = 64;

/// Sizes shared by both interfaces; HV = H * G value heads, value head hv
/// reads q/k head hv / G.
struct GdnDims {
  int64_t T = 0; // packed tokens
  int64_t H = 0; // q/k heads
  int64_t G = 1; // value heads per q/k head
  int64_t K = 0; // key head size
  int64_t V = 0; // value head size
  int64_t HV() const { return H * G; }
  int64_t stateElements() const { return HV() * V * K; } // one pool row
};

/// Pool interface (seed 000, gdn_extend_chunkwise): raw gates, l2norm on.
struct PoolProblem {
  GdnDims dims;
  std::vector<double> q, k;          // [T, H, K]
  std::vector<double> v;             // [T, HV, V]
  std::vector<double> a, b;          // [T, HV] raw decay / update gates
  std::vector<double> aLog, dtBias;  // [HV]
  std::vector<int64_t> cuSeqlens;    // [B + 1]
  std::vector<int64_t> cacheIndices; // [B]
  std::optional<double> scale;       // default K^-0.5
};

/// Paged interface (seed 004, chunk_gated_delta_rule_paged).
struct PagedProblem {
  GdnDims dims;
  std::vector<double> q, k; // [T, H, K]
  std::vector<double> v;    // [T, HV, V]
  /// [T, HV]: g (Log) or alpha = exp(g) (Linear); unused with useGateInKernel.
  std::vector<double> g;
  /// With useGateInKernel: a [T, HV], A_log and dt_bias [HV].
  std::vector<double> a, aLog, dtBias;
  std::vector<double> beta; // [T, HV]: beta, or its logit with betaIsLogit
  std::optional<double> scale;
  std::vector<int64_t> cuSeqlens;   // [B + 1]
  std::vector<int64_t> pageIndices; // CSR page table
  std::vector<int64_t> pageIndptr;  // [B + 1]
  std::vector<int64_t> lastPageLen; // [B]
  int64_t pageSize = 0;
  bool useQkL2norm = false;
  GateDomain gateDomain = GateDomain::Linear;
  bool useGateInKernel = false;
  bool betaIsLogit = false;
};

struct ReferenceResult {
  std::vector<double> o; // [T, HV, V]
  /// Pool rows (pool interface) or page ids (paged) written, in write order;
  /// each appears once per state write (not per head).
  std::vector<int64_t> writtenRows;
};

/// `statePool` is [P, HV, V, K] (P inferred from its size) and is updated in
/// place. Inputs and tables are validated first; on error nothing is written.
Status runPoolReference(const PoolProblem &problem,
                        std::vector<double> &statePool, ReferenceResult &result,
                        Algorithm algorithm = Algorithm::Recurrent,
                        int64_t chunkSize = kDefaultChunkSize);
Status runPagedReference(const PagedProblem &problem,
                         std::vector<double> &statePool,
                         ReferenceResult &result,
                         Algorithm algorithm = Algorithm::Recurrent,
                         int64_t chunkSize = kDefaultChunkSize);

inline Status recurrentPoolReference(const PoolProblem &p,
                                     std::vector<double> &pool,
                                     ReferenceResult &r) {
  return runPoolReference(p, pool, r, Algorithm::Recurrent);
}
inline Status chunkedPoolReference(const PoolProblem &p,
                                   std::vector<double> &pool,
                                   ReferenceResult &r,
                                   int64_t chunkSize = kDefaultChunkSize) {
  return runPoolReference(p, pool, r, Algorithm::Chunked, chunkSize);
}
inline Status recurrentPagedReference(const PagedProblem &p,
                                      std::vector<double> &pool,
                                      ReferenceResult &r) {
  return runPagedReference(p, pool, r, Algorithm::Recurrent);
}
inline Status chunkedPagedReference(const PagedProblem &p,
                                    std::vector<double> &pool,
                                    ReferenceResult &r,
                                    int64_t chunkSize = kDefaultChunkSize) {
  return runPagedReference(p, pool, r, Algorithm::Chunked, chunkSize);
}

} // namespace gdn

#endif // GDN_REFERENCE_REFERENCE_H
