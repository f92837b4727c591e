//===- PageTable.h - Paged state pool: validation and plans -----*- C++ -*-===//
//
// SPEC.md "The paged state pool": which page each sequence reads its initial
// state from and which pages it writes. Shared by the float64 reference and
// the driver's checked mode.
//
//===----------------------------------------------------------------------===//
#ifndef GDN_REFERENCE_PAGETABLE_H
#define GDN_REFERENCE_PAGETABLE_H

#include "gdn/TensorIO/Status.h"

#include <cstdint>
#include <vector>

namespace gdn {

/// The CSR page table of one call, as host integers.
struct PageTable {
  std::vector<int64_t> cuSeqlens;   // [B + 1]
  std::vector<int64_t> pageIndices; // [num_indices]
  std::vector<int64_t> pageIndptr;  // [B + 1]
  std::vector<int64_t> lastPageLen; // [B]
  int64_t pageSize = 0;
  int64_t poolSize = 0;   // P, rows of state_pool
  int64_t numTokens = -1; // T; checked against cu_seqlens[B] when >= 0
};

/// A state write after absolute token position `afterPosition`.
struct PageCheckpoint {
  int64_t afterPosition;
  int64_t page; // pool page id
};

struct SequencePagePlan {
  int64_t tokenBegin = 0;  // cu_seqlens[b]
  int64_t newTokens = 0;   // n_b
  int64_t prefix = 0;      // p_b = L_b - n_b
  int64_t totalTokens = 0; // L_b
  int64_t initialPage = -1; // -1: zero initial state (or nothing read)
  /// Page-boundary writes in token order, excluding the final write (a
  /// boundary at the very last token coincides with it).
  std::vector<PageCheckpoint> checkpoints;
  int64_t finalPage = -1; // -1 only for zero-length sequences

  /// Pool pages this sequence writes, in order (checkpoints, then final).
  std::vector<int64_t> writtenPages() const;
};

/// Limits beyond SPEC.md's rules, so that no page arithmetic overflows: a
/// page holds at most 2^30 tokens and a sequence's pages at most 2^31 - 1
/// (its prefix and new tokens; token positions are 32-bit on the GPU).
inline constexpr int64_t kMaxPageSize = int64_t(1) << 30;
inline constexpr int64_t kMaxSequenceTokens = (int64_t(1) << 31) - 1;

/// page_size is a multiple of 64 in [64, kMaxPageSize]; `what` names it
/// in the message (e.g. "page_size" or "--page-size").
Status validatePageSize(int64_t pageSize, const char *what = "page_size");

/// Every precondition of SPEC.md, with a message naming the array and index.
Status validatePageTable(const PageTable &table);

/// Validates, then computes one plan per sequence.
Status planPages(const PageTable &table, std::vector<SequencePagePlan> &plans);

} // namespace gdn

#endif // GDN_REFERENCE_PAGETABLE_H
