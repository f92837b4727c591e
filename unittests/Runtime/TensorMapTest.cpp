// What a kernel's TMA tensor maps are encoded from (gdn/Runtime/TensorMap.h):
// the shape and strides TMA's way round, and the refusals of what TMA
// cannot describe, without a GPU.

#include "gdn/Runtime/TensorMap.h"

#include <gtest/gtest.h>

using namespace gdn;

namespace {
ParamInfo mapOver(int64_t source, std::vector<int64_t> box,
                  int64_t swizzle = 128) {
  ParamInfo p;
  p.kind = ParamInfo::Kind::TensorMap;
  p.source = source;
  p.box = std::move(box);
  p.swizzle = swizzle;
  return p;
}

/// q, bf16 [B, T, H, K], then a flag.
std::vector<KernelArg> qArgs(int64_t T, int64_t K) {
  return {KernelArg::buffer("q", nullptr, DType::BF16, {2, T, 4, K}),
          KernelArg::indexValue("gate_domain", 0)};
}

void expectRefused(const Status &s, const std::string &what) {
  EXPECT_FALSE(s.ok()) << what;
  EXPECT_NE(s.message.find(what), std::string::npos) << s.message;
}
} // namespace

TEST(TensorMap, ShapeAndStridesInnermostFirst) {
  auto args = qArgs(100, 128);
  TensorMapLayout layout;
  Status s = tensorMapLayout(mapOver(0, {64, 1, 64, 1}), args, 0x10000, layout);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(layout.rank, 4u);
  EXPECT_EQ(layout.dtype, DType::BF16);
  EXPECT_TRUE(layout.swizzle128);
  EXPECT_FALSE(layout.empty);
  const uint64_t dims[] = {128, 4, 100, 2};
  const uint64_t strides[] = {256, 1024, 102400}; // bytes of H, T, B
  const uint32_t box[] = {64, 1, 64, 1};
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(layout.globalDim[d], dims[d]) << d;
    EXPECT_EQ(layout.boxDim[d], box[d]) << d;
  }
  for (int d = 0; d < 3; ++d)
    EXPECT_EQ(layout.globalStrides[d], strides[d]) << d;
}

// A state pool's rows padded apart: the outermost stride is outerStride.
TEST(TensorMap, OuterStrideIsTheOutermostStride) {
  std::vector<KernelArg> args = {
      KernelArg::buffer("state_pool", nullptr, DType::F32, {8, 4, 64, 64})};
  args[0].outerStride = 4 * 64 * 64 + 32;
  TensorMapLayout layout;
  Status s = tensorMapLayout(mapOver(0, {32, 64, 1, 1}), args, 0x20000, layout);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(layout.globalStrides[0], 64u * 4);
  EXPECT_EQ(layout.globalStrides[1], 64u * 64 * 4);
  EXPECT_EQ(layout.globalStrides[2], (4u * 64 * 64 + 32) * 4);
  EXPECT_EQ(layout.globalDim[3], 8u);
}

TEST(TensorMap, RefusesStridesAndAddressesTMACannotUse) {
  TensorMapLayout layout;
  // K = 100 bf16: rows 200 bytes apart.
  expectRefused(tensorMapLayout(mapOver(0, {8, 1, 64, 1}, 0), qArgs(100, 100),
                                0x10000, layout),
                "tensor map of q: the row stride 200 bytes is not a multiple "
                "of 16 (TMA)");
  expectRefused(tensorMapLayout(mapOver(0, {64, 1, 64, 1}), qArgs(100, 128),
                                0x10008, layout),
                "tensor map of q: the address 0x10008 is not 16-byte aligned");
  std::vector<KernelArg> pool = {
      KernelArg::buffer("state_pool", nullptr, DType::F32, {2, 64})};
  pool[0].outerStride = int64_t(1) << 38; // 2^40 bytes
  expectRefused(tensorMapLayout(mapOver(0, {32, 1}), pool, 0x10000, layout),
                "the row stride 1099511627776 bytes is not below 2^40");
  pool[0].outerStride = 68; // 272 bytes: fine
  EXPECT_TRUE(tensorMapLayout(mapOver(0, {32, 1}), pool, 0x10000, layout).ok());
  // Dense inner strides are multiples of the row's; a padded outermost
  // stride need not be.
  std::vector<KernelArg> deep = {
      KernelArg::buffer("w", nullptr, DType::F32, {2, 4, 4})};
  deep[0].outerStride = 17;
  expectRefused(tensorMapLayout(mapOver(0, {4, 1, 1}, 0), deep, 0, layout),
                "tensor map of w: the dimension-0 stride 68 bytes is not a "
                "multiple of 16 (TMA)");
}

TEST(TensorMap, RefusesBoxesAndTensorsTMACannotDescribe) {
  auto args = qArgs(100, 128);
  expectRefused(checkTensorMap(mapOver(0, {64, 1, 300, 1}), args),
                "box dimension 2 is 300, not 1 .. 256");
  expectRefused(checkTensorMap(mapOver(0, {4, 1, 64, 1}), args),
                "inner dimension, 8 bytes, is not a multiple of 16");
  expectRefused(checkTensorMap(mapOver(0, {128, 1, 64, 1}), args),
                "256 bytes, is wider than its 128-byte swizzle");
  EXPECT_TRUE(checkTensorMap(mapOver(0, {128, 1, 64, 1}, 0), args).ok());
  expectRefused(checkTensorMap(mapOver(0, {64, 64}), args),
                "its box has 2 dimensions, the tensor 4");
  expectRefused(checkTensorMap(mapOver(1, {64}), args),
                "tensor map of gate_domain: argument 1 is not a buffer");
  expectRefused(checkTensorMap(mapOver(5, {64}), args),
                "tensor map over argument 5: the call passes 2 arguments");
  expectRefused(checkTensorMap(mapOver(0, {64, 1, 64, 1}, 64), args),
                "swizzle 64 is not 0 or 128");
  std::vector<KernelArg> ints = {
      KernelArg::buffer("cu_seqlens", nullptr, DType::I32, {9})};
  expectRefused(checkTensorMap(mapOver(0, {8}), ints),
                "dtype I32 is not BF16, F16 or F32");
  std::vector<KernelArg> six = {
      KernelArg::buffer("x", nullptr, DType::F32, {1, 1, 1, 1, 1, 4})};
  expectRefused(checkTensorMap(mapOver(0, {4, 1, 1, 1, 1, 1}), six),
                "rank 6 is not 1 .. 5");
  // A workspace is described like a buffer; f16 and f32 as bf16.
  std::vector<KernelArg> ws = {
      KernelArg::workspace("ws", DType::F16, {16, 64})};
  EXPECT_TRUE(checkTensorMap(mapOver(0, {64, 16}), ws).ok());
}

// An empty tensor gives a zero map (TMA has no zero dimensions; a kernel
// reads nothing of it), whatever its address.
TEST(TensorMap, EmptyTensorsAreNotEncoded) {
  TensorMapLayout layout;
  Status s =
      tensorMapLayout(mapOver(0, {64, 1, 64, 1}), qArgs(0, 128), 0, layout);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_TRUE(layout.empty);
}
