//===- CuSeqlens.h - cu_seqlens checks shared by both tables ----*- C++ -*-===//
#ifndef GDN_LIB_REFERENCE_CUSEQLENS_H
#define GDN_LIB_REFERENCE_CUSEQLENS_H

#include "gdn/TensorIO/Status.h"

#include <cstdint>
#include <vector>

namespace gdn {

/// At least one entry, starts at 0, non-decreasing, ends at numTokens when
/// numTokens >= 0.
Status validateCuSeqlens(const std::vector<int64_t> &cuSeqlens,
                         int64_t numTokens);

} // namespace gdn

#endif
