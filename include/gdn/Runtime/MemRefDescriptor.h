//===- MemRefDescriptor.h - memref descriptors for JIT calls ----*- C++ -*-===//
//
// A ranked memref as MLIR's LLVM lowering lays it out:
//   { T *allocated, T *aligned, int64 offset, int64 sizes[R], int64 strides[R] }
// built for a dense row-major buffer, for any rank chosen at run time
// (StridedMemRefType fixes the rank at compile time).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_MEMREFDESCRIPTOR_H
#define GDN_RUNTIME_MEMREFDESCRIPTOR_H

#include <cstdint>
#include <cstring>
#include <vector>

namespace gdn {

class MemRefDescriptor {
public:
  /// Row-major strides; `outerStride` (elements), when not 0, replaces the
  /// outermost one (rows padded apart).
  MemRefDescriptor(void *data, const std::vector<int64_t> &shape,
                   int64_t outerStride = 0) {
    static_assert(sizeof(void *) == sizeof(int64_t), "64-bit hosts only");
    size_t rank = shape.size();
    words.assign(3 + 2 * rank, 0);
    std::memcpy(&words[0], &data, sizeof(void *)); // allocated
    std::memcpy(&words[1], &data, sizeof(void *)); // aligned
    words[2] = 0;                                  // offset
    int64_t stride = 1;
    for (size_t i = rank; i-- > 0;) {
      words[3 + i] = shape[i];
      words[3 + rank + i] = stride;
      stride *= shape[i];
    }
    if (rank > 0 && outerStride)
      words[3 + rank] = outerStride;
  }
  void *get() { return words.data(); }

private:
  std::vector<int64_t> words;
};

} // namespace gdn

#endif // GDN_RUNTIME_MEMREFDESCRIPTOR_H
