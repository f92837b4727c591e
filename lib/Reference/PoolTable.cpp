//===- PoolTable.cpp - Pool interface (cache_indices) validation ----------===//
#include "gdn/Reference/PoolTable.h"

#include "CuSeqlens.h"

#include <map>
#include <string>

namespace gdn {

Status validatePoolTable(const PoolTable &table) {
  if (Status s = validateCuSeqlens(table.cuSeqlens, table.numTokens); !s.ok())
    return s;
  const size_t numSequences = table.cuSeqlens.size() - 1;
  if (table.cacheIndices.size() != numSequences)
    return Status::error("cache_indices has " +
                         std::to_string(table.cacheIndices.size()) +
                         " entries; expected B = " +
                         std::to_string(numSequences) +
                         " (one per sequence of cu_seqlens)");
  std::map<int64_t, size_t> rowOwner; // row -> first sequence with tokens
  for (size_t b = 0; b < numSequences; ++b) {
    const int64_t row = table.cacheIndices[b];
    if (row < 0 || row >= table.poolSize)
      return Status::error("cache_indices[" + std::to_string(b) + "] = " +
                           std::to_string(row) + " is outside [0, P=" +
                           std::to_string(table.poolSize) + ")");
    if (table.cuSeqlens[b + 1] == table.cuSeqlens[b])
      continue;
    auto [it, inserted] = rowOwner.emplace(row, b);
    if (!inserted)
      return Status::error("cache_indices[" + std::to_string(it->second) +
                           "] and cache_indices[" + std::to_string(b) +
                           "] are both " + std::to_string(row) +
                           ": two sequences would write one state_pool row");
  }
  return Status::success();
}

} // namespace gdn
