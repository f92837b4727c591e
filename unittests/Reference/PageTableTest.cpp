//===- PageTableTest.cpp - Page table plans and precondition checks -------===//
#include "gdn/Reference/PageTable.h"
#include "gdn/Reference/PoolTable.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace gdn;

namespace {

/// One sequence of `newTokens` new tokens over `pages` with page size 64.
PageTable singleSequence(int64_t newTokens, std::vector<int64_t> pages,
                         int64_t lastPageLen, int64_t poolSize = 16) {
  PageTable t;
  t.cuSeqlens = {0, newTokens};
  t.pageIndptr = {0, static_cast<int64_t>(pages.size())};
  t.pageIndices = std::move(pages);
  t.lastPageLen = {lastPageLen};
  t.pageSize = 64;
  t.poolSize = poolSize;
  return t;
}

/// A valid two-sequence table, mutated by the error tests.
PageTable twoSequences() {
  PageTable t;
  t.cuSeqlens = {0, 100, 130};
  t.pageIndices = {3, 1, 0, 2};
  t.pageIndptr = {0, 2, 4};
  t.lastPageLen = {36, 30}; // seq 0: 100 tokens, prefix 0; seq 1: 94, prefix 64
  t.pageSize = 64;
  t.poolSize = 4;
  t.numTokens = 130;
  return t;
}

std::string errorOf(const PageTable &t) {
  Status s = validatePageTable(t);
  EXPECT_FALSE(s.ok());
  return s.message;
}

#define EXPECT_MENTIONS(message, word)                                         \
  EXPECT_NE((message).find(word), std::string::npos) << (message)

//===----------------------------------------------------------------------===//
// Valid tables and their plans
//===----------------------------------------------------------------------===//

TEST(PageTablePlanTest, PrefixZero) {
  // 200 new tokens, 4 pages: boundaries after 63, 127, 191; final -> page 3.
  std::vector<SequencePagePlan> plans;
  ASSERT_TRUE(planPages(singleSequence(200, {0, 1, 2, 3}, 8), plans).ok());
  ASSERT_EQ(plans.size(), 1u);
  const SequencePagePlan &p = plans[0];
  EXPECT_EQ(p.newTokens, 200);
  EXPECT_EQ(p.prefix, 0);
  EXPECT_EQ(p.totalTokens, 200);
  EXPECT_EQ(p.initialPage, -1);
  ASSERT_EQ(p.checkpoints.size(), 3u);
  EXPECT_EQ(p.checkpoints[0].afterPosition, 63);
  EXPECT_EQ(p.checkpoints[0].page, 0);
  EXPECT_EQ(p.checkpoints[2].afterPosition, 191);
  EXPECT_EQ(p.checkpoints[2].page, 2);
  EXPECT_EQ(p.finalPage, 3);
  EXPECT_EQ(p.writtenPages(), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(PageTablePlanTest, MidPagePrefixShuffledIds) {
  // L = 4*64 + 44 = 300, 200 new -> prefix 100. Token 99 is in sequence
  // page 1 (id 4): read, continued in place, written after token 127.
  std::vector<SequencePagePlan> plans;
  ASSERT_TRUE(planPages(singleSequence(200, {9, 4, 6, 1, 3}, 44), plans).ok());
  const SequencePagePlan &p = plans[0];
  EXPECT_EQ(p.prefix, 100);
  EXPECT_EQ(p.totalTokens, 300);
  EXPECT_EQ(p.initialPage, 4);
  ASSERT_EQ(p.checkpoints.size(), 3u);
  EXPECT_EQ(p.checkpoints[0].afterPosition, 127);
  EXPECT_EQ(p.checkpoints[0].page, 4);
  EXPECT_EQ(p.checkpoints[1].afterPosition, 191);
  EXPECT_EQ(p.checkpoints[1].page, 6);
  EXPECT_EQ(p.checkpoints[2].afterPosition, 255);
  EXPECT_EQ(p.checkpoints[2].page, 1);
  EXPECT_EQ(p.finalPage, 3);
}

TEST(PageTablePlanTest, PageAlignedPrefixAndEnd) {
  // L = 3*64 = 192 tokens, 64 new: prefix 128 fills pages 0, 1 (read page
  // 1, written never); the boundary after token 191 is the final write.
  std::vector<SequencePagePlan> plans;
  ASSERT_TRUE(planPages(singleSequence(64, {7, 8, 5}, 64), plans).ok());
  const SequencePagePlan &p = plans[0];
  EXPECT_EQ(p.prefix, 128);
  EXPECT_EQ(p.initialPage, 8);
  EXPECT_TRUE(p.checkpoints.empty());
  EXPECT_EQ(p.finalPage, 5);
  EXPECT_EQ(p.writtenPages(), std::vector<int64_t>{5});
}

TEST(PageTablePlanTest, OneNewTokenInFreshPage) {
  // L = 65: prefix 64 (page 0 full), the new token starts page 1.
  std::vector<SequencePagePlan> plans;
  ASSERT_TRUE(planPages(singleSequence(1, {2, 3}, 1), plans).ok());
  EXPECT_EQ(plans[0].initialPage, 2);
  EXPECT_TRUE(plans[0].checkpoints.empty());
  EXPECT_EQ(plans[0].finalPage, 3);
}

TEST(PageTablePlanTest, SharedReadOnlyPrefixPageIsLegal) {
  PageTable t = twoSequences();
  t.pageIndices = {3, 1, 3, 2}; // both own page 3 as a full prefix page
  t.lastPageLen = {36, 30};
  t.cuSeqlens = {0, 36, 66}; // seq 0: 100 tokens, prefix 64 -> reads 3
  t.numTokens = 66;
  std::vector<SequencePagePlan> plans;
  Status s = planPages(t, plans);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(plans[0].initialPage, 3);
  EXPECT_EQ(plans[1].initialPage, 3);
  EXPECT_EQ(plans[0].writtenPages(), std::vector<int64_t>{1});
  EXPECT_EQ(plans[1].writtenPages(), std::vector<int64_t>{2});
}

TEST(PageTablePlanTest, ZeroLengthSequenceReadsAndWritesNothing) {
  PageTable t = twoSequences();
  t.cuSeqlens = {0, 100, 100};
  t.numTokens = 100;
  std::vector<SequencePagePlan> plans;
  ASSERT_TRUE(planPages(t, plans).ok());
  EXPECT_EQ(plans[1].newTokens, 0);
  EXPECT_EQ(plans[1].prefix, 94);
  EXPECT_EQ(plans[1].initialPage, -1);
  EXPECT_TRUE(plans[1].writtenPages().empty());
  // Its pages may then be written by another sequence.
  t.pageIndices = {3, 1, 3, 1};
  EXPECT_TRUE(validatePageTable(t).ok());
}

TEST(PageTablePlanTest, TwoSequences) {
  std::vector<SequencePagePlan> plans;
  ASSERT_TRUE(planPages(twoSequences(), plans).ok());
  EXPECT_EQ(plans[0].tokenBegin, 0);
  EXPECT_EQ(plans[0].writtenPages(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(plans[1].tokenBegin, 100);
  EXPECT_EQ(plans[1].prefix, 64);
  EXPECT_EQ(plans[1].initialPage, 0);
  EXPECT_EQ(plans[1].writtenPages(), std::vector<int64_t>{2});
}

//===----------------------------------------------------------------------===//
// Every precondition violation
//===----------------------------------------------------------------------===//

TEST(PageTableErrorTest, PageSize) {
  PageTable t = twoSequences();
  for (int64_t bad : {int64_t(0), int64_t(-64), int64_t(100), int64_t(32),
                      kMaxPageSize + 64, int64_t(1) << 62, INT64_MIN,
                      INT64_MAX}) {
    t.pageSize = bad;
    std::string m = errorOf(t);
    EXPECT_MENTIONS(m, "page_size = " + std::to_string(bad));
    EXPECT_MENTIONS(m, "multiple of 64 in [64, 2^30]");
  }
  t.pageSize = kMaxPageSize;
  EXPECT_TRUE(validatePageTable(t).ok());
}

// (pages - 1) * page_size + last_page_len must not wrap: with 2^62-token
// pages five pages wrapped to a sequence of 10 tokens, and the checkpoint
// walk of two pages never ended.
TEST(PageTableErrorTest, SequenceLengthOverflow) {
  PageTable t = singleSequence(10, {0, 1, 2, 3, 4}, 10);
  t.pageSize = kMaxPageSize;
  std::string m = errorOf(t);
  EXPECT_MENTIONS(m, "sequence 0 has 5 pages");
  EXPECT_MENTIONS(m, "more than 2^31 - 1 tokens in one sequence");
  // Two 2^30-token pages fit: the prefix is 2^30 tokens, so the initial
  // state is read from the first page (its last token); a third does not.
  t = singleSequence(10, {0, 1}, 10);
  t.pageSize = kMaxPageSize;
  std::vector<SequencePagePlan> plans;
  ASSERT_TRUE(planPages(t, plans).ok());
  EXPECT_EQ(plans[0].totalTokens, kMaxPageSize + 10);
  EXPECT_EQ(plans[0].prefix, kMaxPageSize);
  EXPECT_EQ(plans[0].initialPage, 0);
  EXPECT_TRUE(plans[0].checkpoints.empty());
  EXPECT_EQ(plans[0].finalPage, 1);
  t = singleSequence(10, {0, 1, 2}, kMaxPageSize);
  t.pageSize = kMaxPageSize;
  EXPECT_MENTIONS(errorOf(t), "more than 2^31 - 1 tokens");
}

TEST(PageTableErrorTest, ArrayLengths) {
  PageTable t = twoSequences();
  t.pageIndptr = {0, 2};
  EXPECT_MENTIONS(errorOf(t), "page_indptr has 2 entries; expected B + 1 = 3");
  t = twoSequences();
  t.lastPageLen = {36};
  EXPECT_MENTIONS(errorOf(t), "last_page_len has 1 entries; expected B = 2");
  t = twoSequences();
  t.pageIndptr = {0, 2, 5};
  EXPECT_MENTIONS(errorOf(t), "exceeds the length of page_indices");
}

TEST(PageTableErrorTest, PageIndptr) {
  PageTable t = twoSequences();
  t.pageIndptr = {1, 2, 4};
  EXPECT_MENTIONS(errorOf(t), "page_indptr[0] = 1");
  t.pageIndptr = {0, 3, 2};
  EXPECT_MENTIONS(errorOf(t), "page_indptr is not non-decreasing");
  t.pageIndptr = {0, 0, 4};
  std::string m = errorOf(t);
  EXPECT_MENTIONS(m, "sequence 0 has zero pages");
  EXPECT_MENTIONS(m, "page_indptr");
}

TEST(PageTableErrorTest, LastPageLen) {
  PageTable t = twoSequences();
  t.pageSize = 256;
  t.lastPageLen = {100, 300};
  EXPECT_MENTIONS(errorOf(t), "last_page_len[1] = 300 is outside [1, page_size=256]");
  t.lastPageLen = {0, 30};
  EXPECT_MENTIONS(errorOf(t), "last_page_len[0] = 0");
}

TEST(PageTableErrorTest, MoreNewTokensThanPagesHold) {
  PageTable t = twoSequences();
  t.lastPageLen = {30, 30}; // seq 0 holds 94 tokens but has 100 new ones
  std::string m = errorOf(t);
  EXPECT_MENTIONS(m, "sequence 0 has 100 new tokens");
  EXPECT_MENTIONS(m, "prefix would be negative");
  EXPECT_MENTIONS(m, "last_page_len[0]");
}

TEST(PageTableErrorTest, CuSeqlens) {
  PageTable t = twoSequences();
  t.cuSeqlens = {1, 100, 130};
  EXPECT_MENTIONS(errorOf(t), "cu_seqlens[0] = 1");
  t.cuSeqlens = {0, 100, 90};
  EXPECT_MENTIONS(errorOf(t), "cu_seqlens is not non-decreasing: cu_seqlens[2] = 90");
  t.cuSeqlens = {};
  EXPECT_MENTIONS(errorOf(t), "cu_seqlens is empty");
  t = twoSequences();
  t.numTokens = 131;
  EXPECT_MENTIONS(errorOf(t), "cu_seqlens[2] = 130 but q/k/v hold T = 131");
}

TEST(PageTableErrorTest, PageIdsOutOfRange) {
  PageTable t = twoSequences();
  t.pageIndices = {3, 1, 4, 2};
  EXPECT_MENTIONS(errorOf(t), "page_indices[2] = 4 is outside [0, P=4)");
  t.pageIndices = {3, -1, 0, 2};
  EXPECT_MENTIONS(errorOf(t), "page_indices[1] = -1");
}

TEST(PageTableErrorTest, PageWrittenByOneSequenceAndWrittenByAnother) {
  PageTable t = twoSequences();
  t.pageIndices = {3, 2, 0, 2}; // both write page 2
  std::string m = errorOf(t);
  EXPECT_MENTIONS(m, "page_indices: page 2");
  EXPECT_MENTIONS(m, "written by sequence 0");
  EXPECT_MENTIONS(m, "written by sequence 1");
}

TEST(PageTableErrorTest, PageWrittenByOneSequenceAndReadByAnother) {
  PageTable t = twoSequences();
  t.pageIndices = {3, 1, 1, 2}; // seq 1 reads its initial state from page 1
  std::string m = errorOf(t);
  EXPECT_MENTIONS(m, "page 1 is written by sequence 0");
  EXPECT_MENTIONS(m, "read by sequence 1");
  // The other way round: seq 0 (prefix 64) reads page 3, seq 1 writes it.
  t.pageIndices = {3, 1, 0, 3};
  t.cuSeqlens = {0, 36, 66};
  t.numTokens = 66;
  m = errorOf(t);
  EXPECT_MENTIONS(m, "page 3 is written by sequence 1");
  EXPECT_MENTIONS(m, "read by sequence 0");
}

TEST(PageTableErrorTest, PageWrittenTwiceBySameSequence) {
  std::string m = errorOf(singleSequence(200, {0, 1, 1, 3}, 8));
  EXPECT_MENTIONS(m, "page 1 is written twice by sequence 0");
  // A written page that is also one of its own read-only prefix pages.
  m = errorOf(singleSequence(64, {5, 6, 5}, 64));
  EXPECT_MENTIONS(m, "sequence 0 lists page 5");
  EXPECT_MENTIONS(m, "read-only");
}

//===----------------------------------------------------------------------===//
// The pool interface (cache_indices)
//===----------------------------------------------------------------------===//

TEST(PoolTableTest, ValidAndErrors) {
  PoolTable t;
  t.cuSeqlens = {0, 5, 5, 9};
  t.cacheIndices = {2, 2, 0}; // seq 1 is empty: sharing its row is harmless
  t.poolSize = 3;
  t.numTokens = 9;
  EXPECT_TRUE(validatePoolTable(t).ok());

  PoolTable bad = t;
  bad.cacheIndices = {2, 1, 3};
  Status s = validatePoolTable(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_MENTIONS(s.message, "cache_indices[2] = 3 is outside [0, P=3)");

  bad = t;
  bad.cacheIndices = {2, 1, 2};
  s = validatePoolTable(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_MENTIONS(s.message, "cache_indices[0] and cache_indices[2] are both 2");

  bad = t;
  bad.cacheIndices = {2, 1};
  s = validatePoolTable(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_MENTIONS(s.message, "cache_indices has 2 entries; expected B = 3");

  bad = t;
  bad.cuSeqlens = {0, 5, 4, 9};
  s = validatePoolTable(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_MENTIONS(s.message, "cu_seqlens is not non-decreasing");

  bad = t;
  bad.numTokens = 10;
  s = validatePoolTable(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_MENTIONS(s.message, "T = 10");
}

} // namespace
