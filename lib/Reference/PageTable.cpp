//===- PageTable.cpp - Paged state pool: validation and plans -------------===//
#include "gdn/Reference/PageTable.h"

#include "CuSeqlens.h"

#include <map>
#include <string>

namespace gdn {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// Checks that only need the arrays themselves (no read/write analysis).
Status validateShapes(const PageTable &t) {
  if (Status s = validatePageSize(t.pageSize); !s.ok())
    return s;
  if (Status s = validateCuSeqlens(t.cuSeqlens, t.numTokens); !s.ok())
    return s;
  const size_t numSequences = t.cuSeqlens.size() - 1;
  if (t.pageIndptr.size() != numSequences + 1)
    return Status::error("page_indptr has " + str(t.pageIndptr.size()) +
                         " entries; expected B + 1 = " +
                         str(numSequences + 1) + " (B from cu_seqlens)");
  if (t.lastPageLen.size() != numSequences)
    return Status::error("last_page_len has " + str(t.lastPageLen.size()) +
                         " entries; expected B = " + str(numSequences));
  if (t.pageIndptr[0] != 0)
    return Status::error("page_indptr[0] = " + str(t.pageIndptr[0]) +
                         "; it must start at 0");
  for (size_t b = 0; b < numSequences; ++b) {
    const int64_t numPages = t.pageIndptr[b + 1] - t.pageIndptr[b];
    if (numPages < 0)
      return Status::error("page_indptr is not non-decreasing: page_indptr[" +
                           str(b + 1) + "] = " + str(t.pageIndptr[b + 1]) +
                           " < page_indptr[" + str(b) + "] = " +
                           str(t.pageIndptr[b]));
    if (numPages == 0)
      return Status::error("sequence " + str(b) +
                           " has zero pages (page_indptr[" + str(b) +
                           "] == page_indptr[" + str(b + 1) +
                           "]); every sequence owns at least one page");
  }
  if (t.pageIndptr.back() > static_cast<int64_t>(t.pageIndices.size()))
    return Status::error("page_indptr[" + str(numSequences) + "] = " +
                         str(t.pageIndptr.back()) +
                         " exceeds the length of page_indices (" +
                         str(t.pageIndices.size()) + ")");
  for (int64_t i = 0; i < t.pageIndptr.back(); ++i)
    if (t.pageIndices[i] < 0 || t.pageIndices[i] >= t.poolSize)
      return Status::error("page_indices[" + str(i) + "] = " +
                           str(t.pageIndices[i]) + " is outside [0, P=" +
                           str(t.poolSize) + ")");
  for (size_t b = 0; b < numSequences; ++b) {
    const int64_t last = t.lastPageLen[b];
    if (last < 1 || last > t.pageSize)
      return Status::error("last_page_len[" + str(b) + "] = " + str(last) +
                           " is outside [1, page_size=" + str(t.pageSize) +
                           "]");
    const int64_t numPages = t.pageIndptr[b + 1] - t.pageIndptr[b];
    // (numPages - 1) * page_size + last, refused before it could overflow.
    if (numPages - 1 > (kMaxSequenceTokens - last) / t.pageSize)
      return Status::error(
          "sequence " + str(b) + " has " + str(numPages) +
          " pages (page_indptr) of page_size = " + str(t.pageSize) +
          " tokens, last_page_len[" + str(b) + "] = " + str(last) +
          ": more than 2^31 - 1 tokens in one sequence");
    const int64_t total = (numPages - 1) * t.pageSize + last;
    const int64_t fresh = t.cuSeqlens[b + 1] - t.cuSeqlens[b];
    if (fresh > total)
      return Status::error(
          "sequence " + str(b) + " has " + str(fresh) +
          " new tokens (cu_seqlens) but its pages hold only " + str(total) +
          " tokens (page_indptr: " + str(numPages) +
          " pages, last_page_len[" + str(b) + "] = " + str(last) +
          "); the prefix would be negative");
  }
  return Status::success();
}

SequencePagePlan planSequence(const PageTable &t, size_t b) {
  SequencePagePlan plan;
  const int64_t firstIndex = t.pageIndptr[b];
  const int64_t numPages = t.pageIndptr[b + 1] - firstIndex;
  plan.tokenBegin = t.cuSeqlens[b];
  plan.newTokens = t.cuSeqlens[b + 1] - t.cuSeqlens[b];
  plan.totalTokens = (numPages - 1) * t.pageSize + t.lastPageLen[b];
  plan.prefix = plan.totalTokens - plan.newTokens;
  if (plan.newTokens == 0)
    return plan; // reads and writes nothing
  auto pageOf = [&](int64_t sequencePage) {
    return t.pageIndices[firstIndex + sequencePage];
  };
  if (plan.prefix > 0)
    plan.initialPage = pageOf((plan.prefix - 1) / t.pageSize);
  // First boundary strictly after the prefix; the one at the last token is
  // the final write.
  const int64_t firstBoundary = (plan.prefix / t.pageSize + 1) * t.pageSize;
  for (int64_t end = firstBoundary; end < plan.totalTokens; end += t.pageSize)
    plan.checkpoints.push_back({end - 1, pageOf(end / t.pageSize - 1)});
  plan.finalPage = pageOf(numPages - 1);
  return plan;
}

struct PageUse {
  size_t sequence;
  int64_t sequencePage;
};

/// No page written by one sequence is read or written by another, and no
/// sequence writes a page twice or over one of its own read-only pages.
Status validateAccesses(const PageTable &t,
                        const std::vector<SequencePagePlan> &plans) {
  std::map<int64_t, PageUse> writer;
  for (size_t b = 0; b < plans.size(); ++b) {
    if (plans[b].newTokens == 0)
      continue;
    const int64_t firstIndex = t.pageIndptr[b];
    const int64_t numPages = t.pageIndptr[b + 1] - firstIndex;
    const int64_t firstWritten = plans[b].prefix / t.pageSize;
    for (int64_t j = firstWritten; j < numPages; ++j) {
      const int64_t page = t.pageIndices[firstIndex + j];
      auto [it, inserted] = writer.emplace(page, PageUse{b, j});
      if (inserted)
        continue;
      const PageUse &other = it->second;
      if (other.sequence == b)
        return Status::error(
            "page_indices: page " + str(page) + " is written twice by sequence " +
            str(b) + " (its pages " + str(other.sequencePage) + " and " +
            str(j) + ")");
      return Status::error("page_indices: page " + str(page) +
                           " is written by sequence " + str(other.sequence) +
                           " (its page " + str(other.sequencePage) +
                           ") and also written by sequence " + str(b) +
                           " (its page " + str(j) + ")");
    }
  }
  for (size_t b = 0; b < plans.size(); ++b) {
    if (plans[b].newTokens == 0)
      continue;
    const int64_t firstIndex = t.pageIndptr[b];
    const int64_t firstWritten = plans[b].prefix / t.pageSize;
    // b must not overwrite its own read-only pages, and no other sequence
    // may write the one b reads its initial state from. (Other prefix pages
    // are not read in this call, so another writer does not race with b.)
    for (int64_t j = 0; j < firstWritten; ++j) {
      const int64_t page = t.pageIndices[firstIndex + j];
      auto it = writer.find(page);
      if (it == writer.end())
        continue;
      const bool isInitial = j == (plans[b].prefix - 1) / t.pageSize;
      if (it->second.sequence == b)
        return Status::error("page_indices: sequence " + str(b) +
                             " lists page " + str(page) +
                             " both as read-only prefix page " + str(j) +
                             " and as written page " +
                             str(it->second.sequencePage));
      if (isInitial)
        return Status::error("page_indices: page " + str(page) +
                             " is written by sequence " +
                             str(it->second.sequence) + " (its page " +
                             str(it->second.sequencePage) +
                             ") and read by sequence " + str(b) +
                             " (its initial state, page " + str(j) + ")");
    }
  }
  return Status::success();
}

} // namespace

Status validatePageSize(int64_t pageSize, const char *what) {
  if (pageSize < 64 || pageSize > kMaxPageSize || pageSize % 64 != 0)
    return Status::error(std::string(what) + " = " + str(pageSize) +
                         " is not a multiple of 64 in [64, 2^30]");
  return Status::success();
}

std::vector<int64_t> SequencePagePlan::writtenPages() const {
  std::vector<int64_t> pages;
  for (const PageCheckpoint &c : checkpoints)
    pages.push_back(c.page);
  if (finalPage >= 0)
    pages.push_back(finalPage);
  return pages;
}

Status planPages(const PageTable &table, std::vector<SequencePagePlan> &plans) {
  plans.clear();
  if (Status s = validateShapes(table); !s.ok())
    return s;
  std::vector<SequencePagePlan> result;
  for (size_t b = 0; b + 1 < table.cuSeqlens.size(); ++b)
    result.push_back(planSequence(table, b));
  if (Status s = validateAccesses(table, result); !s.ok())
    return s;
  plans = std::move(result);
  return Status::success();
}

Status validatePageTable(const PageTable &table) {
  std::vector<SequencePagePlan> plans;
  return planPages(table, plans);
}

} // namespace gdn
