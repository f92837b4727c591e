//===- DType.h - Element types of host tensors ------------------*- C++ -*-===//
#ifndef GDN_TENSORIO_DTYPE_H
#define GDN_TENSORIO_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace gdn {

enum class DType { BF16, F16, F32, F64, I32, I64 };

/// Bytes per element.
size_t elementSize(DType dtype);
/// The name safetensors uses ("BF16", "F16", "F32", "F64", "I32", "I64").
const char *dtypeName(DType dtype);
/// Inverse of dtypeName; false for names this project does not support.
bool parseDType(const std::string &name, DType &dtype);
bool isFloatingPoint(DType dtype);

// 16-bit float conversions. Narrowing rounds to nearest, ties to even,
// overflows to infinity, produces subnormals where the format has them and
// keeps NaN a NaN (quiet, sign preserved).
uint16_t floatToBF16(float value);
float bf16ToFloat(uint16_t bits);
uint16_t floatToF16(float value);
float f16ToFloat(uint16_t bits);

// Direct rounding from double (no double rounding through float), used when
// inputs produced in float64 are stored in a 16-bit format.
uint16_t doubleToBF16(double value);
uint16_t doubleToF16(double value);

/// Rounds a double to the nearest value representable in `dtype`
/// (integers: round to nearest, saturating).
double roundToDType(double value, DType dtype);

} // namespace gdn

#endif // GDN_TENSORIO_DTYPE_H
