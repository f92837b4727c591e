//===- HostTensor.h - A dense tensor in host memory -------------*- C++ -*-===//
#ifndef GDN_TENSORIO_HOSTTENSOR_H
#define GDN_TENSORIO_HOSTTENSOR_H

#include "gdn/TensorIO/DType.h"
#include "gdn/TensorIO/Status.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace gdn {

/// Row-major, contiguous, little-endian element bytes.
struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape; // empty shape = scalar (one element)
  std::vector<uint8_t> data;

  int64_t numel() const;
  size_t nbytes() const { return data.size(); }
  /// "BF16[2, 3]": used in every error message about a tensor.
  std::string describe() const;

  /// Every element widened to double (exact for all supported dtypes except
  /// I64 values beyond 2^53).
  std::vector<double> toDoubles() const;
  double doubleAt(size_t i) const;

  /// Builds a tensor of `shape`, rounding each value to `dtype` (round to
  /// nearest even; integers saturate). Missing values are zero, extra ignored.
  static HostTensor fromDoubles(DType dtype, std::vector<int64_t> shape,
                                const std::vector<double> &values);
  /// An all-zero tensor.
  static HostTensor zeros(DType dtype, std::vector<int64_t> shape);

  /// Element i of an index tensor (I32/I64; float dtypes are truncated).
  int64_t indexAt(size_t i) const;
  std::vector<int64_t> toIndices() const;
  static HostTensor fromIndices(DType dtype, std::vector<int64_t> shape,
                                const std::vector<int64_t> &values);
};

/// "[2, 3]"
std::string shapeToString(const std::vector<int64_t> &shape);

/// Checks used by drivers before handing tensors to kernels; the message
/// names the tensor, what it is and what was expected.
Status expectShape(const std::string &name, const HostTensor &tensor,
                   const std::vector<int64_t> &expectedShape);
Status expectDType(const std::string &name, const HostTensor &tensor,
                   std::initializer_list<DType> allowed);

} // namespace gdn

#endif // GDN_TENSORIO_HOSTTENSOR_H
