//===- SafeTensorsTest.cpp - DType conversions and safetensors files ------===//
#include "gdn/TensorIO/DType.h"
#include "gdn/TensorIO/HostTensor.h"
#include "gdn/TensorIO/SafeTensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace gdn;

namespace {

//===----------------------------------------------------------------------===//
// 16-bit float conversions, cases worked out by hand.
//===----------------------------------------------------------------------===//

TEST(DTypeTest, NamesAndSizes) {
  EXPECT_STREQ(dtypeName(DType::BF16), "BF16");
  EXPECT_EQ(elementSize(DType::BF16), 2u);
  EXPECT_EQ(elementSize(DType::F16), 2u);
  EXPECT_EQ(elementSize(DType::F32), 4u);
  EXPECT_EQ(elementSize(DType::I32), 4u);
  EXPECT_EQ(elementSize(DType::F64), 8u);
  EXPECT_EQ(elementSize(DType::I64), 8u);
  DType d;
  ASSERT_TRUE(parseDType("I64", d));
  EXPECT_EQ(d, DType::I64);
  EXPECT_FALSE(parseDType("F8_E4M3", d));
  EXPECT_FALSE(parseDType("bf16", d)); // safetensors names are upper case
}

TEST(DTypeTest, BF16ExactValues) {
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);  // 0x3F800000 truncated
  EXPECT_EQ(floatToBF16(-2.0f), 0xC000); // sign | exp 128
  EXPECT_EQ(floatToBF16(-0.0f), 0x8000);
  EXPECT_EQ(floatToBF16(0.0f), 0x0000);
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToFloat(0x4049), 3.140625f); // 1.5703125 * 2
  EXPECT_EQ(floatToBF16(INFINITY), 0x7F80);
  EXPECT_EQ(floatToBF16(-INFINITY), 0xFF80);
  // FLT_MAX has all mantissa bits set: above the halfway point, so it
  // carries into the exponent and overflows to infinity.
  EXPECT_EQ(floatToBF16(std::numeric_limits<float>::max()), 0x7F80);
}

TEST(DTypeTest, BF16RoundsToNearestEven) {
  // bf16 keeps 7 fraction bits: neighbours of 1 are 1 and 1 + 2^-7.
  const float halfway = 1.0f + std::ldexp(1.0f, -8); // exact tie
  EXPECT_EQ(floatToBF16(halfway), 0x3F80);           // tie -> even (0x..80)
  const float halfwayOdd = 1.0f + 3 * std::ldexp(1.0f, -8); // between 81, 82
  EXPECT_EQ(floatToBF16(halfwayOdd), 0x3F82);               // tie -> even
  const float aboveHalf = halfway + std::ldexp(1.0f, -20);
  EXPECT_EQ(floatToBF16(aboveHalf), 0x3F81);
  const float belowHalf = halfway - std::ldexp(1.0f, -20);
  EXPECT_EQ(floatToBF16(belowHalf), 0x3F80);
}

TEST(DTypeTest, DoubleToBF16AvoidsDoubleRounding) {
  // 1 + 2^-8 + 2^-40 is just above the tie; through float the 2^-40 is lost
  // and the tie would round down. Direct rounding must round up.
  const double x = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(floatToBF16(static_cast<float>(x)), 0x3F80);
  EXPECT_EQ(doubleToBF16(x), 0x3F81);
}

TEST(DTypeTest, F16ExactValues) {
  EXPECT_EQ(floatToF16(1.0f), 0x3C00);
  EXPECT_EQ(floatToF16(-2.0f), 0xC000);
  EXPECT_EQ(floatToF16(65504.0f), 0x7BFF); // largest finite half
  EXPECT_EQ(f16ToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(floatToF16(65519.0f), 0x7BFF); // below the overflow tie
  EXPECT_EQ(floatToF16(65520.0f), 0x7C00); // tie with 65536 -> even -> inf
  EXPECT_EQ(floatToF16(1e6f), 0x7C00);
  EXPECT_EQ(floatToF16(-INFINITY), 0xFC00);
  EXPECT_EQ(f16ToFloat(0x3555), 0.333251953125f); // 1.3330078125 / 4
  // 1 + 2^-11 is a tie between 0x3C00 and 0x3C01 -> even.
  EXPECT_EQ(floatToF16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(floatToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
}

TEST(DTypeTest, F16Subnormals) {
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -14)), 0x0400); // min normal
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -24)), 0x0001); // min subnormal
  EXPECT_EQ(f16ToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16ToFloat(0x03FF), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -25)), 0x0000);     // tie -> even 0
  EXPECT_EQ(floatToF16(3 * std::ldexp(1.0f, -26)), 0x0001); // 0.75 ulp -> 1
  EXPECT_EQ(floatToF16(3 * std::ldexp(1.0f, -25)), 0x0002); // 1.5 -> even 2
  EXPECT_EQ(floatToF16(-std::ldexp(1.0f, -30)), 0x8000);    // -> -0
  // Largest subnormal rounding up carries into the min normal.
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)), 0x0400);
}

TEST(DTypeTest, NaNStaysNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const uint16_t b = floatToBF16(nan), h = floatToF16(nan);
  EXPECT_EQ(b & 0x7F80, 0x7F80);
  EXPECT_NE(b & 0x007F, 0);
  EXPECT_EQ(h & 0x7C00, 0x7C00);
  EXPECT_NE(h & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(bf16ToFloat(b)));
  EXPECT_TRUE(std::isnan(f16ToFloat(h)));
  // A signalling NaN whose payload sits only in the low bits must not
  // collapse to infinity.
  uint32_t snanBits = 0x7F800001;
  float snan;
  std::memcpy(&snan, &snanBits, 4);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(snan))));
  EXPECT_TRUE(std::isnan(f16ToFloat(floatToF16(snan))));
}

TEST(DTypeTest, RoundToDType) {
  EXPECT_EQ(roundToDType(1.0 + std::ldexp(1.0, -9), DType::BF16), 1.0);
  EXPECT_EQ(roundToDType(0.1, DType::F32), double(0.1f));
  EXPECT_EQ(roundToDType(2.5, DType::I32), 2.0); // nearest even
  EXPECT_EQ(roundToDType(1e12, DType::I32), 2147483647.0);
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

TEST(HostTensorTest, FromDoublesRoundsAndIndexes) {
  HostTensor t = HostTensor::fromDoubles(DType::BF16, {2, 2}, {1, 1.00390625, -3, 0.5});
  EXPECT_EQ(t.numel(), 4);
  EXPECT_EQ(t.nbytes(), 8u);
  EXPECT_EQ(t.describe(), "BF16[2, 2]");
  std::vector<double> back = t.toDoubles();
  EXPECT_EQ(back, (std::vector<double>{1, 1, -3, 0.5})); // tie rounded down

  HostTensor i32 = HostTensor::fromIndices(DType::I32, {3}, {0, -7, 2147483647});
  EXPECT_EQ(i32.indexAt(1), -7);
  EXPECT_EQ(i32.toIndices(), (std::vector<int64_t>{0, -7, 2147483647}));
  HostTensor i64 = HostTensor::fromIndices(DType::I64, {1}, {int64_t(1) << 40});
  EXPECT_EQ(i64.indexAt(0), int64_t(1) << 40);

  HostTensor scalar = HostTensor::fromDoubles(DType::F32, {}, {2.5});
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.toDoubles(), std::vector<double>{2.5});
}

TEST(HostTensorTest, ExpectationsNameTheTensor) {
  HostTensor t = HostTensor::zeros(DType::F16, {3, 4});
  EXPECT_TRUE(expectShape("q", t, {3, 4}).ok());
  Status s = expectShape("q", t, {3, 5});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("'q'"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("F16[3, 4]"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("[3, 5]"), std::string::npos) << s.message;
  s = expectDType("q", t, {DType::BF16, DType::F32});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("BF16 or F32"), std::string::npos) << s.message;
  EXPECT_TRUE(expectDType("q", t, {DType::F16}).ok());
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TensorMap sampleTensors() {
  TensorMap m;
  m["bf16"] = HostTensor::fromDoubles(DType::BF16, {2, 3}, {1, -2, 0.5, 3.25, -0.0, 1e30});
  m["f16"] = HostTensor::fromDoubles(DType::F16, {3}, {65504, -1, 6e-8});
  m["f32"] = HostTensor::fromDoubles(DType::F32, {1, 2, 2}, {0.1, -1e-40, 3e38, 7});
  m["f64"] = HostTensor::fromDoubles(DType::F64, {2}, {0.1, -1e300});
  m["i32"] = HostTensor::fromIndices(DType::I32, {4}, {0, -1, 2147483647, -2147483647 - 1});
  m["i64"] = HostTensor::fromIndices(DType::I64, {2}, {int64_t(1) << 62, -5});
  m["scalar"] = HostTensor::fromDoubles(DType::F32, {}, {42});
  m["empty"] = HostTensor::zeros(DType::BF16, {0, 128});
  m["empty1d"] = HostTensor::zeros(DType::I64, {0});
  return m;
}

void expectSameTensors(const TensorMap &a, const TensorMap &b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto &[name, tensor] : a) {
    auto it = b.find(name);
    ASSERT_NE(it, b.end()) << name;
    EXPECT_EQ(it->second.dtype, tensor.dtype) << name;
    EXPECT_EQ(it->second.shape, tensor.shape) << name;
    EXPECT_EQ(it->second.data, tensor.data) << name;
  }
}

TEST(SafeTensorsTest, RoundTripInMemoryEveryDType) {
  TensorMap tensors = sampleTensors();
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serializeSafetensors(tensors, bytes, {{"format", "pt"}}).ok());

  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i)
    headerLen = (headerLen << 8) | bytes[i];
  EXPECT_EQ(headerLen % 8, 0u); // data buffer starts 8-byte aligned
  const std::string header(bytes.begin() + 8, bytes.begin() + 8 + headerLen);
  // Tensors are laid out contiguously in name order: "bf16" comes first.
  EXPECT_NE(header.find("\"bf16\":{\"data_offsets\":[0,12]"), std::string::npos)
      << header;

  TensorMap parsed;
  MetadataMap metadata;
  Status s = parseSafetensors(bytes.data(), bytes.size(), parsed, "mem", &metadata);
  ASSERT_TRUE(s.ok()) << s.message;
  expectSameTensors(tensors, parsed);
  EXPECT_EQ(metadata["format"], "pt");
  EXPECT_EQ(parsed["f16"].toDoubles()[0], 65504);
  EXPECT_EQ(parsed["i64"].indexAt(0), int64_t(1) << 62);
  EXPECT_EQ(parsed["scalar"].toDoubles(), std::vector<double>{42});
}

TEST(SafeTensorsTest, RoundTripThroughFile) {
  const std::string path = testing::TempDir() + "gdn_roundtrip.safetensors";
  TensorMap tensors = sampleTensors();
  Status s = writeSafetensors(path, tensors);
  ASSERT_TRUE(s.ok()) << s.message;
  TensorMap parsed;
  s = readSafetensors(path, parsed);
  ASSERT_TRUE(s.ok()) << s.message;
  expectSameTensors(tensors, parsed);
}

TEST(SafeTensorsTest, EmptyMapRoundTrips) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serializeSafetensors({}, bytes).ok());
  TensorMap parsed;
  EXPECT_TRUE(parseSafetensors(bytes.data(), bytes.size(), parsed).ok());
  EXPECT_TRUE(parsed.empty());
}

TEST(SafeTensorsTest, WriterRefusesInconsistentTensor) {
  TensorMap m;
  m["bad"] = HostTensor::zeros(DType::F32, {2, 2});
  m["bad"].data.pop_back();
  std::vector<uint8_t> bytes;
  Status s = serializeSafetensors(m, bytes);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("'bad'"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("F32[2, 2]"), std::string::npos) << s.message;
}

TEST(SafeTensorsTest, MissingFile) {
  TensorMap parsed;
  Status s = readSafetensors("/nonexistent/dir/x.safetensors", parsed);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("cannot open"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("/nonexistent/dir/x.safetensors"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Malformed files: every one is refused with a message saying why.
//===----------------------------------------------------------------------===//

std::vector<uint8_t> image(const std::string &header, size_t bufferBytes,
                           uint64_t headerLen) {
  // Filled element by element: GCC 12 warns spuriously on vector::insert
  // of a possibly empty string here (-Wstringop-overread).
  std::vector<uint8_t> bytes(8 + header.size() + bufferBytes, 0xAB);
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<uint8_t>(headerLen >> (8 * i));
  for (size_t i = 0; i < header.size(); ++i)
    bytes[8 + i] = static_cast<uint8_t>(header[i]);
  return bytes;
}
std::vector<uint8_t> image(const std::string &header, size_t bufferBytes) {
  return image(header, bufferBytes, header.size());
}

/// Parses and returns the error message ("" if it unexpectedly succeeded).
std::string parseError(const std::vector<uint8_t> &bytes) {
  TensorMap parsed;
  Status s = parseSafetensors(bytes.data(), bytes.size(), parsed, "bad.safetensors");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(parsed.empty());
  if (!s.ok()) {
    EXPECT_NE(s.message.find("bad.safetensors"), std::string::npos) << s.message;
  }
  return s.message;
}

#define EXPECT_MENTIONS(message, word)                                         \
  EXPECT_NE((message).find(word), std::string::npos) << (message)

const std::string kGoodEntry =
    R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";

TEST(SafeTensorsMalformedTest, Sanity) {
  std::vector<uint8_t> bytes = image(kGoodEntry, 8);
  TensorMap parsed;
  EXPECT_TRUE(parseSafetensors(bytes.data(), bytes.size(), parsed).ok());
}

TEST(SafeTensorsMalformedTest, TruncatedFiles) {
  std::vector<uint8_t> good = image(kGoodEntry, 8);
  EXPECT_MENTIONS(parseError({}), "truncated");
  EXPECT_MENTIONS(parseError(std::vector<uint8_t>(good.begin(), good.begin() + 5)),
                  "truncated");
  // Shorter than the header.
  EXPECT_MENTIONS(parseError(std::vector<uint8_t>(good.begin(), good.begin() + 20)),
                  "truncated");
  // Header complete, data cut short: the tensor's range leaves the buffer.
  std::string m = parseError(std::vector<uint8_t>(good.begin(), good.end() - 1));
  EXPECT_MENTIONS(m, "beyond");
  EXPECT_MENTIONS(m, "'x'");
}

TEST(SafeTensorsMalformedTest, AbsurdHeaderLength) {
  EXPECT_MENTIONS(parseError(image(kGoodEntry, 8, uint64_t(1) << 40)), "absurd");
  EXPECT_MENTIONS(parseError(image(kGoodEntry, 8, ~uint64_t(0))), "absurd");
  EXPECT_MENTIONS(parseError(image(kGoodEntry, 8, 1000)), "truncated");
}

TEST(SafeTensorsMalformedTest, InvalidJson) {
  EXPECT_MENTIONS(parseError(image("{\"x\": {", 0)), "JSON");
  EXPECT_MENTIONS(parseError(image("", 0)), "JSON");
  EXPECT_MENTIONS(parseError(image("[1, 2]", 0)), "not an object");
}

TEST(SafeTensorsMalformedTest, EntryNotObject) {
  std::string m = parseError(image(R"({"x": 5})", 0));
  EXPECT_MENTIONS(m, "not an object");
  EXPECT_MENTIONS(m, "'x'");
}

TEST(SafeTensorsMalformedTest, MissingOrWrongTypedFields) {
  EXPECT_MENTIONS(parseError(image(R"({"x": {"shape": [2], "data_offsets": [0, 8]}})", 8)),
                  "missing field 'dtype'");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": 3, "shape": [2], "data_offsets": [0, 8]}})", 8)),
                  "'dtype' must be a string");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "data_offsets": [0, 8]}})", 8)),
                  "missing field 'shape'");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": 2, "data_offsets": [0, 8]}})", 8)),
                  "'shape' must be an array");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 8]}})", 8)),
                  "not an integer");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": ["2"], "data_offsets": [0, 8]}})", 8)),
                  "not an integer");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": [2]}})", 8)),
                  "missing field 'data_offsets'");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0]}})", 8)),
                  "data_offsets");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [-8, 0]}})", 8)),
                  "data_offsets");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": "0:8"}})", 8)),
                  "data_offsets");
  EXPECT_MENTIONS(parseError(image(R"({"__metadata__": {"k": 1}})", 0)), "__metadata__");
  EXPECT_MENTIONS(parseError(image(R"({"__metadata__": [1]})", 0)), "__metadata__");
}

TEST(SafeTensorsMalformedTest, UnknownDType) {
  std::string m = parseError(
      image(R"({"w": {"dtype": "F8_E4M3", "shape": [8], "data_offsets": [0, 8]}})", 8));
  EXPECT_MENTIONS(m, "unsupported dtype");
  EXPECT_MENTIONS(m, "F8_E4M3");
  EXPECT_MENTIONS(m, "'w'");
}

TEST(SafeTensorsMalformedTest, NegativeAndHugeDims) {
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", 8)),
                  "negative");
  // 2^32 * 2^32 wraps to 0 in 64 bits; it must not pass as an empty tensor.
  EXPECT_MENTIONS(parseError(image(
      R"({"x": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 0]}})", 0)),
                  "overflow");
  // Fits in 64 bits as elements, not as bytes.
  EXPECT_MENTIONS(parseError(image(
      R"({"x": {"dtype": "F64", "shape": [4611686018427387904], "data_offsets": [0, 0]}})", 0)),
                  "overflow");
  EXPECT_MENTIONS(parseError(image(
      R"({"x": {"dtype": "F32", "shape": [18446744073709551615], "data_offsets": [0, 0]}})", 0)),
                  "overflow");
}

TEST(SafeTensorsMalformedTest, ZeroDimMakesHugeDimHarmless) {
  std::vector<uint8_t> bytes = image(
      R"({"x": {"dtype": "F32", "shape": [0, 4294967296, 4294967296], "data_offsets": [0, 0]}})", 0);
  TensorMap parsed;
  Status s = parseSafetensors(bytes.data(), bytes.size(), parsed);
  EXPECT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(parsed["x"].numel(), 0);
}

TEST(SafeTensorsMalformedTest, OffsetsInconsistent) {
  std::string m = parseError(image(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 6]}})", 8));
  EXPECT_MENTIONS(m, "size mismatch");
  EXPECT_MENTIONS(m, "F32[2]");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}})", 8)),
                  "beyond");
  EXPECT_MENTIONS(parseError(image(
      R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [8, 18446744073709551615]}})", 8)),
                  "data_offsets");
  EXPECT_MENTIONS(parseError(image(R"({"x": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}})", 8)),
                  "begin > end");
  std::string overlap = parseError(image(
      R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
      R"( "y": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", 12));
  EXPECT_MENTIONS(overlap, "overlapping");
  EXPECT_MENTIONS(overlap, "'x'");
  EXPECT_MENTIONS(overlap, "'y'");
}

} // namespace
