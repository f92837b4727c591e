//===- LayoutTest.cpp - the layouts' thread maps cover their tiles --------===//
//
// Every lowering of a tile op trusts DistributedLayoutAttr::getElementCoords.
// These tests check, for each layout the back end uses, that the threads
// together hold every element of a tile (exactly once where the tile is at
// least as large as the layout's block tile), and pin the warpgroup-MMA
// accumulator map to the fragment the PTX ISA documents for
// wgmma.mma_async.m64nNk16 (checked on the H200 too: the kernels of
// docs/GPUBackend.md's wgmma check store registers by this map).
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GPU/GDNGPUDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
class LayoutTest : public ::testing::Test {
protected:
  LayoutTest() { ctx.loadDialect<GDNGPUDialect>(); }

  /// How many times each element of `shape` is held over all threads.
  std::map<std::vector<int64_t>, int> holders(DistributedLayoutAttr layout,
                                              ArrayRef<int64_t> shape) {
    std::map<std::vector<int64_t>, int> count;
    for (unsigned t = 0; t < layout.getNumThreads(); ++t)
      for (const auto &c : layout.getElementCoords(shape, t))
        ++count[std::vector<int64_t>(c.begin(), c.end())];
    return count;
  }

  /// Every element held exactly `times` times, and nothing outside the tile.
  void expectCover(DistributedLayoutAttr layout, ArrayRef<int64_t> shape,
                   int times) {
    auto count = holders(layout, shape);
    int64_t elements = 1;
    for (int64_t s : shape)
      elements *= s;
    EXPECT_EQ(static_cast<int64_t>(count.size()), elements);
    for (const auto &[coord, n] : count) {
      for (size_t d = 0; d < coord.size(); ++d) {
        EXPECT_GE(coord[d], 0);
        EXPECT_LT(coord[d], shape[d]);
      }
      EXPECT_EQ(n, times) << "element held " << n << " times";
    }
  }

  MLIRContext ctx;
};

TEST_F(LayoutTest, BlockedTilesCoverEachElementOnce) {
  auto b2 = cast<DistributedLayoutAttr>(
      BlockedAttr::get(&ctx, {1, 4}, {4, 8}, {4, 1}, {1, 0}));
  for (auto shape : {std::vector<int64_t>{64, 64}, {64, 128}, {128, 128}})
    expectCover(b2, shape, 1);
  auto b1 = cast<DistributedLayoutAttr>(BlockedAttr::get(&ctx, {1}, {32}, {4}, {0}));
  expectCover(b1, {128}, 1);
  // 64 elements over 128 threads: every element held by two threads.
  expectCover(b1, {64}, 2);
}

TEST_F(LayoutTest, BlockedRowMajorIsCoalesced) {
  // Lanes 0..7 of warp 0 hold consecutive 4-element runs of row 0.
  auto b2 = cast<DistributedLayoutAttr>(
      BlockedAttr::get(&ctx, {1, 4}, {4, 8}, {4, 1}, {1, 0}));
  for (unsigned lane = 0; lane < 8; ++lane) {
    auto coords = b2.getElementCoords({64, 128}, lane);
    for (int64_t i = 0; i < 4; ++i) {
      EXPECT_EQ(coords[i][0], 0);
      EXPECT_EQ(coords[i][1], 4 * lane + i);
    }
  }
  // Lane 8 starts row 1; warp 1 starts row 16.
  EXPECT_EQ(b2.getElementCoords({64, 128}, 8)[0], (SmallVector<int64_t>{1, 0}));
  EXPECT_EQ(b2.getElementCoords({64, 128}, 32)[0], (SmallVector<int64_t>{4, 0}));
}

TEST_F(LayoutTest, WgmmaCoversEachElementOnce) {
  for (unsigned n : {64u, 128u}) {
    auto mma = cast<DistributedLayoutAttr>(WarpgroupMmaAttr::get(&ctx, {4, 1}, n));
    expectCover(mma, {64, n}, 1);
    // The state update's 128-row result: two instruction tiles along M.
    expectCover(mma, {128, n}, 1);
    EXPECT_EQ(mma.getElementCoords({64, n}, 0).size(), n / 2);
  }
  auto two = cast<DistributedLayoutAttr>(WarpgroupMmaAttr::get(&ctx, {8, 1}, 128));
  EXPECT_EQ(two.getNumThreads(), 256u);
  expectCover(two, {128, 128}, 1);
}

TEST_F(LayoutTest, WgmmaMatchesThePtxFragment) {
  // Register i of lane l in warp w: row 16 w + l / 4 + 8 ((i / 2) % 2),
  // column 8 (i / 4) + 2 (l % 4) + i % 2.
  auto mma = cast<DistributedLayoutAttr>(WarpgroupMmaAttr::get(&ctx, {4, 1}, 64));
  using C = SmallVector<int64_t>;
  auto t0 = mma.getElementCoords({64, 64}, 0);
  EXPECT_EQ(t0[0], (C{0, 0}));
  EXPECT_EQ(t0[1], (C{0, 1}));
  EXPECT_EQ(t0[2], (C{8, 0}));
  EXPECT_EQ(t0[3], (C{8, 1}));
  EXPECT_EQ(t0[4], (C{0, 8}));
  EXPECT_EQ(t0[31], (C{8, 57}));
  EXPECT_EQ(mma.getElementCoords({64, 64}, 5)[0], (C{1, 2}));
  EXPECT_EQ(mma.getElementCoords({64, 64}, 32 + 31)[3], (C{16 + 7 + 8, 7}));
  EXPECT_EQ(mma.getElementCoords({64, 64}, 96)[0], (C{48, 0}));
}

TEST_F(LayoutTest, RowSliceOfWgmmaHoldsTheThreadsRows) {
  auto mma = WarpgroupMmaAttr::get(&ctx, {4, 1}, 64);
  auto rows = cast<DistributedLayoutAttr>(SliceAttr::get(&ctx, 1, mma));
  EXPECT_EQ(rows.getRank(), 1u);
  for (unsigned t = 0; t < 128; ++t) {
    auto coords = rows.getElementCoords({64}, t);
    ASSERT_EQ(coords.size(), 2u);
    int64_t first = 16 * (t / 32) + (t % 32) / 4;
    EXPECT_EQ(coords[0][0], first);
    EXPECT_EQ(coords[1][0], first + 8);
  }
  // Four lanes (a quad) share each row of a 64-row tile.
  expectCover(rows, {64}, 4);
  auto cols = cast<DistributedLayoutAttr>(SliceAttr::get(&ctx, 0, mma));
  // Each column: 8 lane rows per warp x 4 warps.
  expectCover(cols, {64}, 32);
}
} // namespace
