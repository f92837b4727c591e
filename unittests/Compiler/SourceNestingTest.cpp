//===- SourceNestingTest.cpp - the bracket-depth guard before parsing -----===//

#include "gdn/Compiler/SourceNesting.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

using gdn::firstTooDeepBracket;

TEST(SourceNestingTest, FindsTheFirstBracketPastTheLimit) {
  EXPECT_EQ(firstTooDeepBracket("a[b(c{d<e>})]", 4), std::nullopt);
  EXPECT_EQ(firstTooDeepBracket("a[b(c{d<e>})]", 3), std::optional<size_t>(7));
  std::string deep(3000, '[');
  EXPECT_EQ(firstTooDeepBracket(deep, 256), std::optional<size_t>(256));
}

TEST(SourceNestingTest, ClosedBracketsDoNotAddUp) {
  std::string flat;
  for (int i = 0; i < 1000; ++i)
    flat += "tensor<64x128xf32> ";
  EXPECT_EQ(firstTooDeepBracket(flat, 1), std::nullopt);
}

TEST(SourceNestingTest, ArrowsStringsAndCommentsAreNotBrackets) {
  // `->` closes nothing: the `<` after it is level 2, over a limit of 1.
  EXPECT_EQ(firstTooDeepBracket("(a) -> (b<c>)", 1), std::optional<size_t>(9));
  EXPECT_EQ(firstTooDeepBracket("\"[[[[\\\"[[\" x // ((((\n y", 1), std::nullopt);
}

TEST(SourceNestingTest, TheBuiltInKernelIsFarBelowTheLimit) {
  std::ifstream in(GDN_KERNELS_DIR "/gdn_chunked.mlir");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(firstTooDeepBracket(text.str(), 16), std::nullopt);
}
