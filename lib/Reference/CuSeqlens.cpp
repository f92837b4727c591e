//===- CuSeqlens.cpp - cu_seqlens checks shared by both tables ------------===//
#include "CuSeqlens.h"

#include <string>

namespace gdn {

Status validateCuSeqlens(const std::vector<int64_t> &cuSeqlens,
                         int64_t numTokens) {
  if (cuSeqlens.empty())
    return Status::error("cu_seqlens is empty; it needs B + 1 >= 1 entries");
  if (cuSeqlens[0] != 0)
    return Status::error("cu_seqlens[0] = " + std::to_string(cuSeqlens[0]) +
                         "; it must start at 0");
  for (size_t i = 1; i < cuSeqlens.size(); ++i)
    if (cuSeqlens[i] < cuSeqlens[i - 1])
      return Status::error(
          "cu_seqlens is not non-decreasing: cu_seqlens[" + std::to_string(i) +
          "] = " + std::to_string(cuSeqlens[i]) + " < cu_seqlens[" +
          std::to_string(i - 1) + "] = " + std::to_string(cuSeqlens[i - 1]));
  if (numTokens >= 0 && cuSeqlens.back() != numTokens)
    return Status::error("cu_seqlens[" + std::to_string(cuSeqlens.size() - 1) +
                         "] = " + std::to_string(cuSeqlens.back()) +
                         " but q/k/v hold T = " + std::to_string(numTokens) +
                         " tokens");
  return Status::success();
}

} // namespace gdn
