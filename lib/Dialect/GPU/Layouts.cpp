//===- Layouts.cpp - who holds what: the layouts' thread maps -------------===//
//
// Every lowering of a tile op asks the same question: which elements does
// this thread hold, in which registers? The answers live here, once, and the
// unit tests check that each layout covers every element of a tile.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GPU/GDNGPUDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
using Coords = SmallVector<SmallVector<int64_t>>;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

unsigned product(ArrayRef<unsigned> xs) {
  unsigned p = 1;
  for (unsigned x : xs)
    p *= x;
  return p;
}

/// `linear` split into one index per dimension, `order[0]` fastest.
SmallVector<int64_t> delinearize(int64_t linear, ArrayRef<int64_t> sizes,
                                 ArrayRef<unsigned> order) {
  SmallVector<int64_t> idx(sizes.size(), 0);
  for (unsigned d : order) {
    idx[d] = linear % sizes[d];
    linear /= sizes[d];
  }
  return idx;
}

bool isPermutation(ArrayRef<unsigned> order, size_t rank) {
  if (order.size() != rank)
    return false;
  llvm::SmallSet<unsigned, 4> seen;
  for (unsigned d : order)
    if (d >= rank || !seen.insert(d).second)
      return false;
  return true;
}

bool isPowerOf2(unsigned x) { return x && !(x & (x - 1)); }
} // namespace

//===----------------------------------------------------------------------===//
// Blocked
//===----------------------------------------------------------------------===//

LogicalResult
BlockedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                    ArrayRef<unsigned> sizePerThread,
                    ArrayRef<unsigned> threadsPerWarp,
                    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank < 1 || rank > 2)
    return emitError() << "blocked layouts are for rank-1 or rank-2 tiles";
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank)
    return emitError() << "sizePerThread, threadsPerWarp and warpsPerCTA "
                          "need one entry per dimension";
  if (!isPermutation(order, rank))
    return emitError() << "order must be a permutation of the dimensions";
  if (product(threadsPerWarp) != kWarpSize)
    return emitError() << "threadsPerWarp must multiply to " << kWarpSize;
  for (ArrayRef<unsigned> v : {sizePerThread, threadsPerWarp, warpsPerCTA})
    if (!llvm::all_of(v, isPowerOf2))
      return emitError() << "layout sizes must be powers of 2";
  return success();
}

unsigned BlockedAttr::getNumThreads() const {
  return kWarpSize * product(getWarpsPerCTA());
}

unsigned BlockedAttr::getRank() const { return getSizePerThread().size(); }

Coords BlockedAttr::getElementCoords(ArrayRef<int64_t> shape,
                                     unsigned thread) const {
  unsigned rank = getRank();
  ArrayRef<unsigned> spt = getSizePerThread(), tpw = getThreadsPerWarp(),
                     wpc = getWarpsPerCTA(), order = getOrder();
  SmallVector<int64_t> tpw64(tpw.begin(), tpw.end()),
      wpc64(wpc.begin(), wpc.end());
  SmallVector<int64_t> lane = delinearize(thread % kWarpSize, tpw64, order);
  SmallVector<int64_t> warp = delinearize(thread / kWarpSize, wpc64, order);
  SmallVector<int64_t> ctaTile(rank), perThread(rank);
  int64_t regs = 1;
  for (unsigned d = 0; d < rank; ++d) {
    ctaTile[d] = int64_t(spt[d]) * tpw[d] * wpc[d];
    perThread[d] = spt[d] * std::max<int64_t>(1, ceilDiv(shape[d], ctaTile[d]));
    regs *= perThread[d];
  }
  Coords coords;
  for (int64_t reg = 0; reg < regs; ++reg) {
    SmallVector<int64_t> idx = delinearize(reg, perThread, order);
    SmallVector<int64_t> c(rank);
    for (unsigned d = 0; d < rank; ++d) {
      int64_t rep = idx[d] / spt[d], inner = idx[d] % spt[d];
      c[d] = (rep * ctaTile[d] + (warp[d] * tpw[d] + lane[d]) * spt[d] + inner) %
             shape[d];
    }
    coords.push_back(std::move(c));
  }
  return coords;
}

//===----------------------------------------------------------------------===//
// WarpgroupMma
//===----------------------------------------------------------------------===//

LogicalResult
WarpgroupMmaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<unsigned> warpsPerCTA, unsigned instrN) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "wgmma layouts are for rank-2 tiles: warpsPerCTA "
                          "needs two entries";
  if (warpsPerCTA[0] % kWarpsPerWarpgroup != 0 || warpsPerCTA[1] == 0)
    return emitError() << "a warpgroup (4 warps) covers the 64 rows of one "
                          "instruction: warpsPerCTA[0] must be a multiple of 4";
  if (instrN < 8 || instrN > 256 || instrN % 8 != 0)
    return emitError() << "instrN must be a multiple of 8 in [8, 256], got "
                       << instrN;
  return success();
}

unsigned WarpgroupMmaAttr::getNumThreads() const {
  return kWarpSize * product(getWarpsPerCTA());
}

unsigned WarpgroupMmaAttr::getRank() const { return 2; }

Coords WarpgroupMmaAttr::getElementCoords(ArrayRef<int64_t> shape,
                                          unsigned thread) const {
  unsigned wm = getWarpsPerCTA()[0], n = getInstrN();
  unsigned lane = thread % kWarpSize, warp = thread / kWarpSize;
  int64_t warpM = warp % wm, warpN = warp / wm;
  int64_t ctaM = 16 * int64_t(wm), ctaN = int64_t(n) * getWarpsPerCTA()[1];
  int64_t repM = std::max<int64_t>(1, ceilDiv(shape[0], ctaM));
  int64_t repN = std::max<int64_t>(1, ceilDiv(shape[1], ctaN));
  Coords coords;
  for (int64_t rm = 0; rm < repM; ++rm)
    for (int64_t rn = 0; rn < repN; ++rn)
      for (int64_t i = 0; i < n / 2; ++i) {
        int64_t row = rm * ctaM + 16 * warpM + lane / 4 + 8 * ((i / 2) % 2);
        int64_t col = rn * ctaN + warpN * n + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        coords.push_back({row % shape[0], col % shape[1]});
      }
  return coords;
}

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

LogicalResult SliceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                unsigned dim, DistributedLayoutAttr parent) {
  if (!parent)
    return emitError() << "a slice needs a distributed parent layout";
  if (parent.getRank() != 2)
    return emitError() << "slices are of rank-2 layouts";
  if (dim > 1)
    return emitError() << "dim must be 0 or 1, got " << dim;
  return success();
}

unsigned SliceAttr::getNumThreads() const {
  return getParent().getNumThreads();
}

unsigned SliceAttr::getRank() const { return 1; }

Coords SliceAttr::getElementCoords(ArrayRef<int64_t> shape,
                                   unsigned thread) const {
  // The parent over a tile one element wide along `dim`: its coordinates
  // along the other dimension, each once, in the parent's register order.
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  Coords coords;
  llvm::SmallSet<int64_t, 16> seen;
  for (const auto &c : getParent().getElementCoords(parentShape, thread)) {
    int64_t x = c[1 - getDim()];
    if (seen.insert(x).second)
      coords.push_back({x});
  }
  return coords;
}

//===----------------------------------------------------------------------===//
// Shared-memory operands
//===----------------------------------------------------------------------===//

LogicalResult
NVMMASharedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned swizzleBytes, bool) {
  if (swizzleBytes != 32 && swizzleBytes != 64 && swizzleBytes != 128)
    return emitError() << "swizzleBytes must be 32, 64 or 128, got "
                       << swizzleBytes;
  return success();
}

LogicalResult
DotOperandAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       unsigned opIdx, WarpgroupMmaAttr parent,
                       NVMMASharedAttr shared) {
  if (opIdx > 1)
    return emitError() << "opIdx must be 0 (A) or 1 (B), got " << opIdx;
  if (!parent || !shared)
    return emitError() << "a dot operand needs its wgmma parent and shared layout";
  return success();
}
