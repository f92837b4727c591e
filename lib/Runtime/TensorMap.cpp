//===- TensorMap.cpp - what a kernel's TMA tensor maps describe -----------===//

#include "gdn/Runtime/TensorMap.h"

#include <cstdio>
#include <string>

using namespace gdn;

namespace {
Status refuse(const KernelArg &arg, const std::string &why) {
  return Status::error("tensor map of " + arg.name + ": " + why);
}
} // namespace

Status gdn::checkTensorMap(const ParamInfo &map,
                           const std::vector<KernelArg> &args) {
  if (map.source < 0 || map.source >= static_cast<int64_t>(args.size()))
    return Status::error("tensor map over argument " +
                         std::to_string(map.source) + ": the call passes " +
                         std::to_string(args.size()) + " arguments");
  const KernelArg &a = args[map.source];
  if (a.kind != KernelArg::Kind::Buffer && a.kind != KernelArg::Kind::Workspace)
    return refuse(a, "argument " + std::to_string(map.source) +
                         " is not a buffer");
  const size_t rank = a.shape.size();
  if (map.box.size() != rank)
    return refuse(a, "its box has " + std::to_string(map.box.size()) +
                         " dimensions, the tensor " + std::to_string(rank));
  if (rank < 1 || rank > TensorMapLayout::kMaxRank)
    return refuse(a, "rank " + std::to_string(rank) + " is not 1 .. " +
                         std::to_string(TensorMapLayout::kMaxRank) + " (TMA)");
  if (a.dtype != DType::BF16 && a.dtype != DType::F16 && a.dtype != DType::F32)
    return refuse(a, std::string("dtype ") + dtypeName(a.dtype) +
                         " is not BF16, F16 or F32");
  for (size_t d = 0; d < rank; ++d)
    if (map.box[d] < 1 || map.box[d] > 256)
      return refuse(a, "box dimension " + std::to_string(d) + " is " +
                           std::to_string(map.box[d]) + ", not 1 .. 256 (TMA)");
  if (map.swizzle != 0 && map.swizzle != 128)
    return refuse(a, "swizzle " + std::to_string(map.swizzle) +
                         " is not 0 or 128");
  // Box dimension 0 is the innermost: whole 16-byte units, one swizzle span.
  const int64_t innerBytes =
      map.box[0] * static_cast<int64_t>(elementSize(a.dtype));
  if (innerBytes % 16 != 0)
    return refuse(a, "the box's inner dimension, " +
                         std::to_string(innerBytes) +
                         " bytes, is not a multiple of 16 (TMA)");
  if (map.swizzle && innerBytes > map.swizzle)
    return refuse(a, "the box's inner dimension, " +
                         std::to_string(innerBytes) +
                         " bytes, is wider than its " +
                         std::to_string(map.swizzle) + "-byte swizzle (TMA)");
  return Status::success();
}

Status gdn::tensorMapLayout(const ParamInfo &map,
                            const std::vector<KernelArg> &args,
                            uint64_t address, TensorMapLayout &layout) {
  if (Status s = checkTensorMap(map, args); !s.ok())
    return s;
  const KernelArg &a = args[map.source];
  const size_t rank = a.shape.size();
  const uint64_t element = elementSize(a.dtype);
  layout = TensorMapLayout();
  layout.rank = static_cast<uint32_t>(rank);
  layout.dtype = a.dtype;
  layout.swizzle128 = map.swizzle == 128;
  for (size_t d = 0; d < rank; ++d) {
    layout.boxDim[d] = static_cast<uint32_t>(map.box[d]);
    if (a.shape[rank - 1 - d] == 0)
      layout.empty = true;
  }
  if (layout.empty)
    return Status::success();
  if (rank == 1 && a.outerStride > 1)
    return refuse(a, "its elements are " + std::to_string(a.outerStride) +
                         " apart; TMA reads consecutive elements");
  if (address % 16 != 0) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "%#llx",
                  static_cast<unsigned long long>(address));
    return refuse(a, std::string("the address ") + hex +
                         " is not 16-byte aligned (TMA)");
  }
  // Row-major: dimension j's stride is the product of the dimensions after
  // it (the outermost's is outerStride where rows are padded apart).
  uint64_t stride = 1;
  for (size_t j = rank; j-- > 0;) {
    const uint64_t dim = static_cast<uint64_t>(a.shape[j]);
    if (dim > (uint64_t(1) << 32))
      return refuse(a, "dimension " + std::to_string(j) + " has " +
                           std::to_string(dim) +
                           " elements, more than 2^32 (TMA)");
    layout.globalDim[rank - 1 - j] = dim;
    if (j + 1 < rank) {
      const uint64_t bytes =
          (j == 0 && a.outerStride ? a.outerStride : stride) * element;
      if (bytes % 16 != 0 || bytes >= (uint64_t(1) << 40)) {
        const std::string which =
            j + 2 == rank ? "row" : "dimension-" + std::to_string(j);
        return refuse(
            a,
            "the " + which + " stride " + std::to_string(bytes) + " bytes is " +
                (bytes % 16 != 0 ? "not a multiple of 16" : "not below 2^40") +
                " (TMA)");
      }
      layout.globalStrides[rank - 2 - j] = bytes;
    }
    stride *= dim;
  }
  return Status::success();
}
