//===- HostTensor.cpp - Element access and conversions --------------------===//
#include "gdn/TensorIO/HostTensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace gdn {

namespace {

template <typename T> T loadAs(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T> void storeAs(uint8_t *p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

/// Saturating round to an integer type; the double bounds of int64 are not
/// themselves representable, so compare against 2^63 explicitly.
template <typename Int> Int saturatingRound(double value) {
  if (std::isnan(value))
    return 0;
  const double r = std::nearbyint(value);
  const double limit = std::ldexp(1.0, std::numeric_limits<Int>::digits);
  if (r >= limit)
    return std::numeric_limits<Int>::max();
  if (r < -limit)
    return std::numeric_limits<Int>::min();
  return static_cast<Int>(r);
}

} // namespace

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string HostTensor::describe() const {
  return std::string(dtypeName(dtype)) + shapeToString(shape);
}

double HostTensor::doubleAt(size_t i) const {
  const uint8_t *p = data.data() + i * elementSize(dtype);
  switch (dtype) {
  case DType::BF16:
    return bf16ToFloat(loadAs<uint16_t>(p));
  case DType::F16:
    return f16ToFloat(loadAs<uint16_t>(p));
  case DType::F32:
    return loadAs<float>(p);
  case DType::F64:
    return loadAs<double>(p);
  case DType::I32:
    return loadAs<int32_t>(p);
  case DType::I64:
    return static_cast<double>(loadAs<int64_t>(p));
  }
  return 0;
}

std::vector<double> HostTensor::toDoubles() const {
  const size_t n = data.size() / elementSize(dtype);
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = doubleAt(i);
  return out;
}

HostTensor HostTensor::zeros(DType dtype, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.assign(static_cast<size_t>(t.numel()) * elementSize(dtype), 0);
  return t;
}

HostTensor HostTensor::fromDoubles(DType dtype, std::vector<int64_t> shape,
                                   const std::vector<double> &values) {
  HostTensor t = zeros(dtype, std::move(shape));
  const size_t n = std::min(values.size(), static_cast<size_t>(t.numel()));
  const size_t width = elementSize(dtype);
  for (size_t i = 0; i < n; ++i) {
    uint8_t *p = t.data.data() + i * width;
    const double v = values[i];
    switch (dtype) {
    case DType::BF16:
      storeAs<uint16_t>(p, doubleToBF16(v));
      break;
    case DType::F16:
      storeAs<uint16_t>(p, doubleToF16(v));
      break;
    case DType::F32:
      storeAs<float>(p, static_cast<float>(v));
      break;
    case DType::F64:
      storeAs<double>(p, v);
      break;
    case DType::I32:
      storeAs<int32_t>(p, saturatingRound<int32_t>(v));
      break;
    case DType::I64:
      storeAs<int64_t>(p, saturatingRound<int64_t>(v));
      break;
    }
  }
  return t;
}

int64_t HostTensor::indexAt(size_t i) const {
  const uint8_t *p = data.data() + i * elementSize(dtype);
  if (dtype == DType::I32)
    return loadAs<int32_t>(p);
  if (dtype == DType::I64)
    return loadAs<int64_t>(p);
  return saturatingRound<int64_t>(std::trunc(doubleAt(i)));
}

std::vector<int64_t> HostTensor::toIndices() const {
  const size_t n = data.size() / elementSize(dtype);
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = indexAt(i);
  return out;
}

HostTensor HostTensor::fromIndices(DType dtype, std::vector<int64_t> shape,
                                   const std::vector<int64_t> &values) {
  HostTensor t = zeros(dtype, std::move(shape));
  const size_t n = std::min(values.size(), static_cast<size_t>(t.numel()));
  const size_t width = elementSize(dtype);
  for (size_t i = 0; i < n; ++i) {
    uint8_t *p = t.data.data() + i * width;
    if (dtype == DType::I32)
      storeAs<int32_t>(p, static_cast<int32_t>(values[i]));
    else if (dtype == DType::I64)
      storeAs<int64_t>(p, values[i]);
    else {
      HostTensor one = fromDoubles(dtype, {}, {static_cast<double>(values[i])});
      std::memcpy(p, one.data.data(), width);
    }
  }
  return t;
}

Status expectShape(const std::string &name, const HostTensor &tensor,
                   const std::vector<int64_t> &expectedShape) {
  if (tensor.shape == expectedShape)
    return Status::success();
  return Status::error("tensor '" + name + "' is " + tensor.describe() +
                       "; expected shape " + shapeToString(expectedShape));
}

Status expectDType(const std::string &name, const HostTensor &tensor,
                   std::initializer_list<DType> allowed) {
  std::string names; // "F32, BF16 or F16"
  size_t i = 0;
  for (DType d : allowed) {
    if (d == tensor.dtype)
      return Status::success();
    names += i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ";
    names += dtypeName(d);
    ++i;
  }
  return Status::typeError("tensor '" + name + "' is " + tensor.describe() +
                           "; expected dtype " + names);
}

} // namespace gdn
