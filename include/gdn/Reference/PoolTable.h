//===- PoolTable.h - Pool interface (cache_indices) validation --*- C++ -*-===//
#ifndef GDN_REFERENCE_POOLTABLE_H
#define GDN_REFERENCE_POOLTABLE_H

#include "gdn/TensorIO/Status.h"

#include <cstdint>
#include <vector>

namespace gdn {

struct PoolTable {
  std::vector<int64_t> cuSeqlens;    // [B + 1]
  std::vector<int64_t> cacheIndices; // [B]
  int64_t poolSize = 0;              // P
  int64_t numTokens = -1;            // T; checked when >= 0
};

/// cu_seqlens starts at 0 and never decreases (and ends at T), cache_indices
/// has B entries in [0, P), and no row is used by two sequences that both
/// have tokens (a zero-length sequence reads and writes nothing).
Status validatePoolTable(const PoolTable &table);

} // namespace gdn

#endif // GDN_REFERENCE_POOLTABLE_H
