//===- DType.cpp - Element types and 16-bit float rounding ----------------===//
#include "gdn/TensorIO/DType.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace gdn {

size_t elementSize(DType dtype) {
  switch (dtype) {
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return "BF16";
  case DType::F16:
    return "F16";
  case DType::F32:
    return "F32";
  case DType::F64:
    return "F64";
  case DType::I32:
    return "I32";
  case DType::I64:
    return "I64";
  }
  return "?";
}

bool parseDType(const std::string &name, DType &dtype) {
  static const DType all[] = {DType::BF16, DType::F16, DType::F32,
                              DType::F64,  DType::I32, DType::I64};
  for (DType candidate : all) {
    if (name == dtypeName(candidate)) {
      dtype = candidate;
      return true;
    }
  }
  return false;
}

bool isFloatingPoint(DType dtype) {
  return dtype == DType::BF16 || dtype == DType::F16 || dtype == DType::F32 ||
         dtype == DType::F64;
}

namespace {

/// Rounds a double to a binary float format with `expBits` exponent bits and
/// `manBits` stored mantissa bits (IEEE layout, with subnormals), returning
/// its bit pattern. Working from the double's bits avoids the double rounding
/// a detour through float could cause.
uint32_t roundDoubleToBits(double value, int expBits, int manBits) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint32_t sign = static_cast<uint32_t>(bits >> 63) << (expBits + manBits);
  const int exp = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t man = bits & ((uint64_t(1) << 52) - 1);
  const uint32_t maxExpField = (1u << expBits) - 1;
  const uint32_t infBits = sign | (maxExpField << manBits);

  if (exp == 0x7ff) {
    if (man == 0)
      return infBits;
    // Keep the top payload bits and force the quiet bit so it stays a NaN.
    uint32_t payload = static_cast<uint32_t>(man >> (52 - manBits));
    return infBits | payload | (1u << (manBits - 1));
  }
  // Double zeros and subnormals are far below half the smallest 16-bit
  // subnormal, so they round to a signed zero.
  if (exp == 0)
    return sign;

  const int bias = (1 << (expBits - 1)) - 1;
  const int targetExp = exp - 1023 + bias; // biased exponent in the target
  const uint64_t significand = (uint64_t(1) << 52) | man; // 1.man * 2^52
  // Normal targets keep manBits fraction bits; subnormal ones lose as many
  // extra bits as the exponent is below the minimum.
  int shift = 52 - manBits + (targetExp >= 1 ? 0 : 1 - targetExp);
  if (shift > 63)
    return sign;
  uint64_t rounded = significand >> shift;
  const uint64_t remainder = significand & ((uint64_t(1) << shift) - 1);
  const uint64_t half = uint64_t(1) << (shift - 1);
  if (remainder > half || (remainder == half && (rounded & 1)))
    ++rounded;

  if (targetExp < 1) // subnormal; a carry into 2^manBits encodes min normal
    return sign | static_cast<uint32_t>(rounded);

  int resultExp = targetExp;
  if (rounded >> (manBits + 1)) { // mantissa carried into a new binade
    rounded >>= 1;
    ++resultExp;
  }
  if (resultExp >= static_cast<int>(maxExpField))
    return infBits;
  const uint32_t fraction =
      static_cast<uint32_t>(rounded) & ((1u << manBits) - 1);
  return sign | (static_cast<uint32_t>(resultExp) << manBits) | fraction;
}

/// Exact decoding of a small binary float format.
double bitsToDouble(uint32_t bits, int expBits, int manBits) {
  const bool negative = (bits >> (expBits + manBits)) & 1;
  const uint32_t expField = (bits >> manBits) & ((1u << expBits) - 1);
  const uint32_t fraction = bits & ((1u << manBits) - 1);
  const int bias = (1 << (expBits - 1)) - 1;
  double magnitude;
  if (expField == (1u << expBits) - 1)
    magnitude = fraction ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  else if (expField == 0)
    magnitude = std::ldexp(static_cast<double>(fraction), 1 - bias - manBits);
  else
    magnitude = std::ldexp(static_cast<double>(fraction | (1u << manBits)),
                           static_cast<int>(expField) - bias - manBits);
  return negative ? -magnitude : magnitude;
}

} // namespace

uint16_t doubleToBF16(double value) {
  return static_cast<uint16_t>(roundDoubleToBits(value, 8, 7));
}
uint16_t doubleToF16(double value) {
  return static_cast<uint16_t>(roundDoubleToBits(value, 5, 10));
}
uint16_t floatToBF16(float value) { return doubleToBF16(value); }
uint16_t floatToF16(float value) { return doubleToF16(value); }
float bf16ToFloat(uint16_t bits) {
  return static_cast<float>(bitsToDouble(bits, 8, 7));
}
float f16ToFloat(uint16_t bits) {
  return static_cast<float>(bitsToDouble(bits, 5, 10));
}

namespace {
template <typename Int> double roundToInt(double value) {
  if (std::isnan(value))
    return 0;
  const double lo = static_cast<double>(std::numeric_limits<Int>::min());
  const double hi = static_cast<double>(std::numeric_limits<Int>::max());
  double r = std::nearbyint(value);
  return r < lo ? lo : (r > hi ? hi : r);
}
} // namespace

double roundToDType(double value, DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return bitsToDouble(doubleToBF16(value), 8, 7);
  case DType::F16:
    return bitsToDouble(doubleToF16(value), 5, 10);
  case DType::F32:
    return static_cast<double>(static_cast<float>(value));
  case DType::F64:
    return value;
  case DType::I32:
    return roundToInt<int32_t>(value);
  case DType::I64:
    return roundToInt<int64_t>(value);
  }
  return value;
}

} // namespace gdn
