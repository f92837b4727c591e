//===- TensorMap.h - what a kernel's TMA tensor maps describe ---*- C++ -*-===//
//
// A kernel's tensor-map parameter (ParamInfo::Kind::TensorMap) is encoded
// per launch by cuTensorMapEncodeTiled over one of the call's buffers. What
// it is given, and the refusals of what TMA cannot describe, are computed
// here without the driver, so they are tested on machines without a GPU.
// MLIR-free and CUDA-free.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_TENSORMAP_H
#define GDN_RUNTIME_TENSORMAP_H

#include "gdn/Runtime/Artifact.h"
#include "gdn/Runtime/KernelArgs.h"
#include "gdn/TensorIO/Status.h"

#include <cstdint>
#include <vector>

namespace gdn {

/// The arguments of cuTensorMapEncodeTiled, TMA's order (innermost
/// dimension first). Fixed arrays: built on every launch.
struct TensorMapLayout {
  static constexpr int kMaxRank = 5; // TMA's
  uint32_t rank = 0;
  DType dtype = DType::F32; // BF16, F16 or F32
  uint64_t globalDim[kMaxRank] = {};
  uint64_t globalStrides[kMaxRank - 1] = {}; // bytes, of dimensions 1 ..
  uint32_t boxDim[kMaxRank] = {};
  bool swizzle128 = false;
  /// The tensor has no elements: cuTensorMapEncodeTiled refuses a zero
  /// dimension, and a kernel reads nothing of it; the map stays zero.
  bool empty = false;
};

/// Refuses a tensor map the call's `args` cannot give: `map.source` must be
/// a buffer or workspace of rank box.size() (1 .. 5) holding bf16, f16 or
/// f32, the box 1 .. 256 elements a dimension and its inner dimension a
/// multiple of 16 bytes (at most 128 with swizzle 128). The message names
/// the tensor.
Status checkTensorMap(const ParamInfo &map, const std::vector<KernelArg> &args);

/// `layout` for `map` over args[map.source] at device `address`: the
/// shape and strides reversed, the outermost stride `outerStride` where
/// rows are padded apart. Refuses (naming the tensor) what TMA cannot
/// address: an address not 16-byte aligned, a stride not a multiple of 16
/// bytes or from 2^40, a dimension above 2^32; and what checkTensorMap
/// refuses.
Status tensorMapLayout(const ParamInfo &map, const std::vector<KernelArg> &args,
                       uint64_t address, TensorMapLayout &layout);

} // namespace gdn

#endif // GDN_RUNTIME_TENSORMAP_H
