//===- KernelArgs.h - arguments of a compiled kernel ------------*- C++ -*-===//
//
// What a driver hands to a compiled kernel, independent of the backend: dense
// row-major buffers (passed as memrefs) and scalars. MLIR-free, so a
// runtime-only build can use it.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_KERNELARGS_H
#define GDN_RUNTIME_KERNELARGS_H

#include "gdn/TensorIO/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gdn {

struct KernelArg {
  /// Workspace: a buffer between the kernels of a schedule; the backend
  /// allocates it (poisoned), nothing is copied in or out.
  enum class Kind { Buffer, Index, F32, I1, Workspace };
  Kind kind = Kind::Index;
  std::string name;           // for error messages: the tensor or flag name
  void *data = nullptr;       // Buffer: first element
  DType dtype = DType::F32;   // Buffer: element type
  std::vector<int64_t> shape; // Buffer: row-major shape
  // Buffer: the outermost dimension's stride in elements where rows are
  // padded apart (a state pool's row stride, seed 004); 0: dense.
  int64_t outerStride = 0;
  int64_t index = 0;          // Index
  float f32 = 0.0f;           // F32
  bool i1 = false;            // I1

  static KernelArg buffer(std::string name, void *data, DType dtype,
                          std::vector<int64_t> shape) {
    KernelArg a;
    a.kind = Kind::Buffer;
    a.name = std::move(name);
    a.data = data;
    a.dtype = dtype;
    a.shape = std::move(shape);
    return a;
  }
  static KernelArg workspace(std::string name, DType dtype,
                             std::vector<int64_t> shape) {
    KernelArg a = buffer(std::move(name), nullptr, dtype, std::move(shape));
    a.kind = Kind::Workspace;
    return a;
  }
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  static KernelArg indexValue(std::string name, int64_t v) {
    KernelArg a;
    a.kind = Kind::Index;
    a.name = std::move(name);
    a.index = v;
    return a;
  }
  static KernelArg f32Value(std::string name, float v) {
    KernelArg a;
    a.kind = Kind::F32;
    a.name = std::move(name);
    a.f32 = v;
    return a;
  }
  static KernelArg i1Value(std::string name, bool v) {
    KernelArg a;
    a.kind = Kind::I1;
    a.name = std::move(name);
    a.i1 = v;
    return a;
  }
};

/// The shape parameters a kernel is specialised for (its type aliases).
struct KernelShape {
  int64_t K = 128;        // key head size
  int64_t V = 128;        // value head size
  DType io = DType::BF16; // q / k / v / o storage type
  // The state pool's storage type: F32, or BF16 / F16 read and written by
  // the kernels themselves (widened on load, rounded to nearest even on
  // store; the state is computed in fp32).
  DType state = DType::F32;
  // State rows per program (a V-split, the schedule's v-block): each value
  // head's V rows are spread over V / vBlock programs. 0: the whole V.
  int64_t vBlock = 0;
  // Tokens per chunk: the rows of the chunk tiles (the schedule's chunk=).
  int64_t chunk = kDefaultChunk;

  static constexpr int64_t kDefaultChunk = 64;
  /// Whether `tokens` is a chunk size the kernels take (32, 64 or 128).
  static bool validChunk(int64_t tokens) {
    return tokens == 32 || tokens == 64 || tokens == 128;
  }

  /// Tiles hold head sizes rounded up to the MMA tile (kHeadTile): loads
  /// zero-fill the padding and stores skip it, so any K, V runs one kernel.
  static constexpr int64_t kHeadTile = 64;
  /// The largest head sizes (FLA's: K up to 256; its layer's default
  /// expand_v = 2 gives V = 512).
  static constexpr int64_t kMaxK = 256, kMaxV = 512;
  static int64_t padded(int64_t size) {
    return (size + kHeadTile - 1) / kHeadTile * kHeadTile;
  }
  int64_t tileK() const { return padded(K); }
  int64_t tileV() const { return padded(V); }
  int64_t vTile() const { return vBlock ? vBlock : tileV(); }
  /// Programs per value head on the grid's x axis.
  int64_t programsPerHead() const { return tileV() / vTile(); }
  /// Whether a kernel compiled for `other` serves this shape's calls.
  bool sameKernel(const KernelShape &other) const {
    return K == other.K && V == other.V && io == other.io &&
           state == other.state && chunk == other.chunk;
  }
};

/// A launch grid of up to three axes (program ids 0, 1, 2).
struct Grid {
  int64_t x = 1, y = 1, z = 1;
  int64_t size() const { return x * y * z; }
};

} // namespace gdn

#endif // GDN_RUNTIME_KERNELARGS_H
