//===- ScalarFormulas.h - scalar bodies of gdn ops --------------*- C++ -*-===//
//
// The scalar bodies of gdn.gate, gdn.sigmoid, gdn.l2norm's scale and
// gdn.page_lookup and the state pool's float casts, shared by every back end (the CPU's linalg bodies and the
// GPU's per-register code), so the numerics (clamps, overflow-safe forms),
// the page-table walk and the padding rule of tile loads and stores are
// written once.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_SCALARFORMULAS_H
#define GDN_DIALECT_SCALARFORMULAS_H

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::gdn {
/// log decay g of one input x of a gate in `domain`. For raw gates,
/// `negDecayRate` = -exp(A_log) and `dtBias` are the head's scalars.
Value emitGate(OpBuilder &b, Location loc, GateDomain domain, Value x,
               Value negDecayRate, Value dtBias);
/// -exp(A_log), once per head.
Value emitNegDecayRate(OpBuilder &b, Location loc, Value aLog);
/// 1 / (1 + exp(-x)).
Value emitSigmoid(OpBuilder &b, Location loc, Value x);
/// rsqrt(sumOfSquares + eps), the factor of an l2-normalised row.
Value emitInverseNorm(OpBuilder &b, Location loc, Value sumOfSquares, double eps);
/// The pool row of page `page` of sequence `seq`:
/// page_indices[page_indptr[seq] + page], as an index.
Value emitPageLookup(OpBuilder &b, Location loc, Value pageIndices,
                     Value pageIndptr, Value seq, Value page);
/// For each dimension of a tile of `tileShape` walking memref dimensions
/// `dims`: the memref's static extent where the tile pads it (the extent is
/// not a multiple of the tile's size along it), else nullopt. Padding
/// elements, whose memref index reaches the extent, are zero when loaded
/// and are not stored.
SmallVector<std::optional<int64_t>> tilePadding(MemRefType memref,
                                                ArrayRef<int64_t> tileShape,
                                                ArrayRef<int64_t> dims);
/// `v` (a float or a vector of floats) as element type `to`: widened (a
/// bf16 / fp16 state pool read into fp32) or rounded to nearest even
/// (written back to one); `v` itself where the types agree.
Value emitFloatCast(OpBuilder &b, Location loc, Value v, Type to);
/// Whether a tile access of `tileShape` along `dims` has padding.
bool hasTilePadding(MemRefType memref, ArrayRef<int64_t> tileShape,
                    ArrayRef<int64_t> dims);
/// i1: whether every padded dimension's memref index in `indices` is inside
/// its extent (true when nothing is padded).
Value emitInsidePadding(OpBuilder &b, Location loc,
                        ArrayRef<std::optional<int64_t>> padding,
                        ArrayRef<int64_t> dims, ValueRange indices);
} // namespace mlir::gdn

#endif // GDN_DIALECT_SCALARFORMULAS_H
