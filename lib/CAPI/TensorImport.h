//===- TensorImport.h - DLPack tensors as the driver's tensors --*- C++ -*-===//
//
// The C library borrows the caller's DLTensors. Small tensors (gates, index
// arrays) are copied into HostTensors, since validation reads them and the
// kernels want them widened; large ones (q, k, v, the pool, the output)
// become shape-only HostTensors whose memory stays the caller's.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_CAPI_TENSORIMPORT_H
#define GDN_CAPI_TENSORIMPORT_H

#include "gdn-c/gdn.h"
#include "gdn/Driver/Problem.h"
#include "gdn/TensorIO/HostTensor.h"

#include <string>
#include <vector>

namespace gdn::capi {

/// A borrowed tensor: its dtype, shape and strides (elements) and where its
/// first element is.
struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides; // in elements, never empty for rank > 0
  char *data = nullptr;         // the first element (byte offset applied)
  bool onHost = true;
  int deviceId = 0;             // CUDA device ordinal when not on the host

  int64_t numel() const;
  /// Row-major with no gaps.
  bool compact() const;
  /// Compact except for the stride of dimension 0 (a padded row).
  bool compactRows() const;
  /// "BF16[2, 3]" as in every message about a tensor.
  std::string describe() const;
};

/// Reads a DLTensor: its dtype must be one the project knows (bf16, f16,
/// f32, f64, i32, i64, one lane), its device the host or a CUDA device.
Status viewTensor(const std::string &name, const DLTensor &tensor,
                  TensorView &view);

/// A dense row-major copy (any strides).
HostTensor copyToHost(const TensorView &view);

/// A tensor with the view's dtype and shape and no element bytes: enough
/// for validation, which reads shapes only; the kernel gets the caller's
/// pointer (see bindCallerMemory in Call.cpp).
HostTensor shapeOnly(const TensorView &view);

/// The row stride (elements) of a [P, ...] pool whose rows are padded
/// apart, for the kernel's memref descriptor; 0 where the rows are dense.
int64_t poolRowStride(const TensorView &pool);

/// Refuses a compact float view holding inf or NaN, naming the element.
Status checkFiniteValues(const TensorView &view);

/// Refuses an output `o` that does not have v's dtype and shape.
Status checkOutput(const TensorView &out, const HostTensor &v);

/// The driver's flags for a call's C flags.
run::CallFlags callFlags(const gdn_call_flags &flags);

} // namespace gdn::capi

#endif // GDN_CAPI_TENSORIMPORT_H
