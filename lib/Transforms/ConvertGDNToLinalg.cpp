//===- ConvertGDNToLinalg.cpp - gdn tile ops -> linalg / tensor / scf -----===//
//
// The CPU path's first conversion. Compute ops become linalg ops on tensors
// (so upstream bufferization, fusion and loop lowering apply); the few
// inherently sequential ops (cumsum, the triangular inverse) become scf.for
// loops over tensor elements; tile loads are tensor.generate ops that read
// the memref (zero past the row count) and tile stores are loops of
// tensor.extract + memref.store.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Dialect/ScalarFormulas.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_CONVERTGDNTOLINALG
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn;

namespace {

using utils::IteratorType;

Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// A zero-filled f32 tensor of the given shape, the init of reductions.
Value zeros(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  return linalg::FillOp::create(b, loc, f32Const(b, loc, 0.0), empty)
      .getResult(0);
}

/// Elementwise linalg.generic over `type`'s shape: `inputs` are read with the
/// given maps (identity where none is given), `body` returns the element.
Value elementwise(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  while (maps.size() < inputs.size())
    maps.push_back(b.getMultiDimIdentityMap(rank));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<IteratorType> iters(rank, IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

/// Indices into a memref for tile element (ivs) of a tile at `base` along
/// `dims`.
SmallVector<Value> tileIndices(OpBuilder &b, Location loc, ValueRange base,
                               ArrayRef<int64_t> dims, ValueRange ivs) {
  SmallVector<Value> idx(base.begin(), base.end());
  for (auto [d, iv] : llvm::zip(dims, ivs))
    idx[d] = arith::AddIOp::create(b, loc, idx[d], iv);
  return idx;
}

/// Whether tile element `ivs` at memref `indices` is stored or read: its row
/// is below `rows` (when given) and it is not padding. Null when every
/// element is.
Value elementInside(OpBuilder &b, Location loc,
                    ArrayRef<std::optional<int64_t>> padding,
                    ArrayRef<int64_t> dims, ValueRange ivs, ValueRange indices,
                    Value rows) {
  Value inside;
  if (rows)
    inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ivs[0],
                                   rows);
  if (llvm::any_of(padding, [](auto e) { return e.has_value(); })) {
    Value in = emitInsidePadding(b, loc, padding, dims, indices);
    inside = inside ? arith::AndIOp::create(b, loc, inside, in).getResult() : in;
  }
  return inside;
}

/// A tile read element by element from a memref; rows at and past `rows`
/// (when given) and padding are zero and are not read. Elements are
/// widened to the tile's type where the memref's is narrower.
Value loadTile(OpBuilder &b, Location loc, RankedTensorType type, Value memref,
               ValueRange base, ArrayRef<int64_t> dims, Value rows) {
  auto padding = tilePadding(cast<MemRefType>(memref.getType()),
                             type.getShape(), dims);
  auto gen = tensor::GenerateOp::create(
      b, loc, type, ValueRange{},
      [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
        SmallVector<Value> idx = tileIndices(nb, nloc, base, dims, ivs);
        Value inside = elementInside(nb, nloc, padding, dims, ivs, idx, rows);
        Value v;
        if (inside) {
          auto ifOp = scf::IfOp::create(
              nb, nloc, inside,
              [&](OpBuilder &bb, Location l) {
                scf::YieldOp::create(
                    bb, l,
                    emitFloatCast(bb, l, memref::LoadOp::create(bb, l, memref, idx),
                              type.getElementType()));
              },
              [&](OpBuilder &bb, Location l) {
                Value zero = arith::ConstantOp::create(
                    bb, l, bb.getZeroAttr(type.getElementType()));
                scf::YieldOp::create(bb, l, zero);
              });
          v = ifOp.getResult(0);
        } else {
          v = emitFloatCast(nb, nloc, memref::LoadOp::create(nb, nloc, memref, idx),
                        type.getElementType());
        }
        tensor::YieldOp::create(nb, nloc, v);
      });
  return gen.getResult();
}

/// Stores rows [0, rows) of a tile, padding left out, into a memref: an
/// scf.forall of element stores, parallel by construction (threads on the
/// GPU, loops on the CPU).
void storeTile(OpBuilder &b, Location loc, Value tile, Value memref,
               ValueRange base, ArrayRef<int64_t> dims, Value rows) {
  auto type = cast<RankedTensorType>(tile.getType());
  auto padding = tilePadding(cast<MemRefType>(memref.getType()),
                             type.getShape(), dims);
  SmallVector<OpFoldResult> upper{rows ? OpFoldResult(rows)
                                       : b.getIndexAttr(type.getDimSize(0))};
  if (type.getRank() == 2)
    upper.push_back(b.getIndexAttr(type.getDimSize(1)));
  scf::ForallOp::create(
      b, loc, upper, ValueRange{}, std::nullopt,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        SmallVector<Value> idx = tileIndices(nb, nl, base, dims, ivs);
        // Rows are bounded by the loop; padding by a guard.
        Value inside =
            elementInside(nb, nl, padding, dims, ivs, idx, /*rows=*/Value());
        auto store = [&](OpBuilder &at) {
          Value v = tensor::ExtractOp::create(at, nl, tile, ivs);
          memref::StoreOp::create(
              at, nl,
              emitFloatCast(at, nl, v,
                        cast<MemRefType>(memref.getType()).getElementType()),
              memref, idx);
        };
        if (inside) {
          auto guard = scf::IfOp::create(nb, nl, inside, /*withElse=*/false);
          OpBuilder at = OpBuilder::atBlockBegin(guard.thenBlock());
          store(at);
        } else {
          store(nb);
        }
        scf::InParallelOp::create(nb, nl);
      });
}

//===----------------------------------------------------------------------===//
// Tiles in and out
//===----------------------------------------------------------------------===//

struct TileLoadLowering : OpConversionPattern<TileLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, loadTile(rewriter, op.getLoc(), op.getType(),
                                    adaptor.getSource(), adaptor.getIndices(),
                                    op.getDims(), adaptor.getRows()));
    return success();
  }
};

struct TileStoreLowering : OpConversionPattern<TileStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    storeTile(rewriter, op.getLoc(), adaptor.getValue(), adaptor.getDest(),
              adaptor.getIndices(), op.getDims(), adaptor.getRows());
    rewriter.eraseOp(op);
    return success();
  }
};

struct StateLoadLowering : OpConversionPattern<StateLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StateLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value zero = indexConst(rewriter, loc, 0);
    Value row = adaptor.getRow() ? adaptor.getRow() : zero;
    SmallVector<Value> base{adaptor.getPage(), adaptor.getHead(), row, zero};
    rewriter.replaceOp(op, loadTile(rewriter, loc, op.getType(),
                                    adaptor.getPool(), base, {2, 3}, {}));
    return success();
  }
};

struct StateStoreLowering : OpConversionPattern<StateStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StateStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value zero = indexConst(rewriter, loc, 0);
    Value row = adaptor.getRow() ? adaptor.getRow() : zero;
    SmallVector<Value> base{adaptor.getPage(), adaptor.getHead(), row, zero};
    storeTile(rewriter, loc, adaptor.getValue(), adaptor.getPool(), base,
              {2, 3}, {});
    rewriter.eraseOp(op);
    return success();
  }
};

struct PageLookupLowering : OpConversionPattern<PageLookupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PageLookupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, emitPageLookup(rewriter, op.getLoc(),
                                          adaptor.getPageIndices(),
                                          adaptor.getPageIndptr(),
                                          adaptor.getSeq(), adaptor.getPage()));
    return success();
  }
};

struct MaskRowsLowering : OpConversionPattern<MaskRowsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaskRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value rows = adaptor.getRows();
    Type elt = op.getType().getElementType();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(),
                        adaptor.getValue(), {},
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          Value r = linalg::IndexOp::create(b, loc, 0);
                          Value inside = arith::CmpIOp::create(
                              b, loc, arith::CmpIPredicate::ult, r, rows);
                          Value zero = arith::ConstantOp::create(
                              b, loc, b.getZeroAttr(elt));
                          return arith::SelectOp::create(b, loc, inside,
                                                         args[0], zero);
                        }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gates and cumulative decay
//===----------------------------------------------------------------------===//

struct GateLowering : OpConversionPattern<GateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    if (op.getDomain() == GateDomain::log) {
      rewriter.replaceOp(op, input);
      return success();
    }
    Value negDecayRate = op.getDomain() == GateDomain::raw
                             ? emitNegDecayRate(rewriter, loc, adaptor.getALog())
                             : Value();
    GateDomain domain = op.getDomain();
    Value dtBias = adaptor.getDtBias();
    rewriter.replaceOp(
        op, elementwise(rewriter, loc, op.getType(), input, {},
                        [&](OpBuilder &b, Location l, ValueRange args) {
                          return emitGate(b, l, domain, args[0], negDecayRate,
                                          dtBias);
                        }));
    return success();
  }
};

struct SigmoidLowering : OpConversionPattern<SigmoidOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SigmoidOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(),
                        adaptor.getInput(), {},
                        [](OpBuilder &b, Location l, ValueRange args) {
                          return emitSigmoid(b, l, args[0]);
                        }));
    return success();
  }
};

struct CumsumLowering : OpConversionPattern<CumsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value input = adaptor.getInput();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConst(rewriter, loc, 0),
        indexConst(rewriter, loc, type.getDimSize(0)),
        indexConst(rewriter, loc, 1),
        ValueRange{init, f32Const(rewriter, loc, 0.0)},
        [&](OpBuilder &b, Location l, Value i, ValueRange iter) {
          Value x = tensor::ExtractOp::create(b, l, input, ValueRange{i});
          Value sum = arith::AddFOp::create(b, l, iter[1], x);
          Value out = tensor::InsertOp::create(b, l, sum, iter[0], ValueRange{i});
          scf::YieldOp::create(b, l, ValueRange{out, sum});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Row normalisation and scaling
//===----------------------------------------------------------------------===//

struct L2NormLowering : OpConversionPattern<L2NormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(L2NormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    MLIRContext *ctx = rewriter.getContext();
    AffineMap id = rewriter.getMultiDimIdentityMap(2);
    AffineMap row = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
    // Sum of squares per row.
    Value sumSq =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{RankedTensorType::get(
                               {type.getDimSize(0)}, rewriter.getF32Type())},
            adaptor.getInput(), zeros(rewriter, loc, {type.getDimSize(0)}),
            ArrayRef<AffineMap>{id, row},
            ArrayRef<IteratorType>{IteratorType::parallel,
                                   IteratorType::reduction},
            [](OpBuilder &b, Location l, ValueRange args) {
              Value sq = arith::MulFOp::create(b, l, args[0], args[0]);
              linalg::YieldOp::create(b, l,
                                      ValueRange{arith::AddFOp::create(
                                          b, l, args[1], sq)});
            })
            .getResult(0);
    double eps = op.getEps().convertToDouble();
    rewriter.replaceOp(
        op, elementwise(rewriter, loc, type, {adaptor.getInput(), sumSq},
                        {id, row},
                        [&](OpBuilder &b, Location l, ValueRange args) {
                          return arith::MulFOp::create(
                              b, l, args[0], emitInverseNorm(b, l, args[1], eps));
                        }));
    return success();
  }
};

struct ScaleRowsLowering : OpConversionPattern<ScaleRowsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScaleRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    AffineMap row = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(),
                        {adaptor.getInput(), adaptor.getScale()},
                        {rewriter.getMultiDimIdentityMap(2), row},
                        [](OpBuilder &b, Location l, ValueRange args) {
                          return arith::MulFOp::create(b, l, args[0], args[1]);
                        }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Matmul and triangular inverse
//===----------------------------------------------------------------------===//

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType type = op.getType();
    AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx),
               k = getAffineDimExpr(2, ctx);
    AffineMap lhsMap = op.getTransposeA() ? AffineMap::get(3, 0, {k, i}, ctx)
                                           : AffineMap::get(3, 0, {i, k}, ctx);
    AffineMap rhsMap = op.getTransposeB() ? AffineMap::get(3, 0, {j, k}, ctx)
                                           : AffineMap::get(3, 0, {k, j}, ctx);
    AffineMap outMap = AffineMap::get(3, 0, {i, j}, ctx);
    Type f32 = rewriter.getF32Type();
    Value product =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type},
            ValueRange{adaptor.getLhs(), adaptor.getRhs()},
            zeros(rewriter, loc, type.getShape()),
            ArrayRef<AffineMap>{lhsMap, rhsMap, outMap},
            ArrayRef<IteratorType>{IteratorType::parallel,
                                   IteratorType::parallel,
                                   IteratorType::reduction},
            [&](OpBuilder &b, Location l, ValueRange args) {
              auto widen = [&](Value v) -> Value {
                return v.getType() == f32 ? v
                                          : arith::ExtFOp::create(b, l, f32, v);
              };
              // Reassociation lets LLVM vectorise the reduction; the order
              // of fp32 sums is not part of the contract (SPEC.md).
              auto fm = arith::FastMathFlags::reassoc |
                        arith::FastMathFlags::contract;
              Value p = arith::MulFOp::create(b, l, widen(args[0]),
                                              widen(args[1]), fm);
              linalg::YieldOp::create(
                  b, l,
                  ValueRange{arith::AddFOp::create(b, l, args[2], p, fm)});
            })
            .getResult(0);
    MaskKind mask = op.getMask();
    if (mask == MaskKind::none) {
      // acc: added after the product, whose contraction keeps its zero
      // start.
      if (Value acc = adaptor.getAcc())
        product = elementwise(rewriter, loc, type, ValueRange{acc, product}, {},
                              [](OpBuilder &b, Location l, ValueRange args) {
                                return arith::AddFOp::create(b, l, args[0], args[1])
                                    .getResult();
                              });
      rewriter.replaceOp(op, product);
      return success();
    }
    // Mask, and decay exp(gamma_i - gamma_j) on the kept entries only (the
    // exponent is zeroed elsewhere so it cannot overflow).
    Value decay = adaptor.getDecay();
    SmallVector<Value> inputs{product};
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(2)};
    if (decay) {
      inputs.append({decay, decay});
      maps.push_back(AffineMap::get(2, 0, getAffineDimExpr(0, ctx)));
      maps.push_back(AffineMap::get(2, 0, getAffineDimExpr(1, ctx)));
    }
    auto pred = mask == MaskKind::causal ? arith::CmpIPredicate::ule
                                         : arith::CmpIPredicate::ult;
    rewriter.replaceOp(
        op, elementwise(rewriter, loc, type, inputs, maps,
                        [&](OpBuilder &b, Location l, ValueRange args) {
                          Value r = linalg::IndexOp::create(b, l, 0);
                          Value c = linalg::IndexOp::create(b, l, 1);
                          Value keep = arith::CmpIOp::create(b, l, pred, c, r);
                          Value zero = f32Const(b, l, 0.0);
                          Value v = args[0];
                          if (decay) {
                            Value diff =
                                arith::SubFOp::create(b, l, args[1], args[2]);
                            diff = arith::SelectOp::create(b, l, keep, diff,
                                                           zero);
                            v = arith::MulFOp::create(
                                b, l, v, math::ExpOp::create(b, l, diff));
                          }
                          return arith::SelectOp::create(b, l, keep, v, zero);
                        }));
    return success();
  }
};

struct TriInverseLowering : OpConversionPattern<TriInverseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TriInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t n = type.getDimSize(0);
    Value a = adaptor.getInput();
    // Tm starts as I; row i becomes e_i - sum_{j<i} A[i,j] Tm[j,:]
    // (forward substitution; Tm[j, c] = 0 for c > j).
    Value identity = elementwise(
        rewriter, loc, type, ValueRange{}, {},
        [](OpBuilder &b, Location l, ValueRange) {
          Value r = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          Value diag =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, r, c);
          return arith::SelectOp::create(b, l, diag, f32Const(b, l, 1.0),
                                         f32Const(b, l, 0.0));
        });
    // Row i of Tm is e_i - sum_{j<i} A[i,j] Tm[j,:], rows in order; each
    // row is a masked vector-matrix product (parallel over columns).
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr c = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
    auto vecType = RankedTensorType::get({n}, rewriter.getF32Type());
    auto rows = scf::ForOp::create(
        rewriter, loc, indexConst(rewriter, loc, 1),
        indexConst(rewriter, loc, n), indexConst(rewriter, loc, 1),
        ValueRange{identity},
        [&](OpBuilder &b, Location l, Value i, ValueRange iter) {
          Value t = iter[0];
          SmallVector<OpFoldResult> offsets{i, b.getIndexAttr(0)};
          SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), b.getIndexAttr(n)};
          SmallVector<OpFoldResult> strides{b.getIndexAttr(1), b.getIndexAttr(1)};
          Value rowA = tensor::ExtractSliceOp::create(b, l, vecType, a, offsets,
                                                      sizes, strides);
          Value sum =
              linalg::GenericOp::create(
                  b, l, TypeRange{vecType}, ValueRange{rowA, t},
                  zeros(b, l, {n}),
                  ArrayRef<AffineMap>{AffineMap::get(2, 0, {j}, ctx),
                                      AffineMap::get(2, 0, {j, c}, ctx),
                                      AffineMap::get(2, 0, {c}, ctx)},
                  ArrayRef<IteratorType>{IteratorType::parallel,
                                         IteratorType::reduction},
                  [&](OpBuilder &gb, Location gl, ValueRange args) {
                    Value jj = linalg::IndexOp::create(gb, gl, 1);
                    Value below = arith::CmpIOp::create(
                        gb, gl, arith::CmpIPredicate::ult, jj, i);
                    Value aij = arith::SelectOp::create(gb, gl, below, args[0],
                                                        f32Const(gb, gl, 0.0));
                    Value p = arith::MulFOp::create(gb, gl, aij, args[1]);
                    linalg::YieldOp::create(
                        gb, gl,
                        ValueRange{arith::AddFOp::create(gb, gl, args[2], p)});
                  })
                  .getResult(0);
          Value row = elementwise(
              b, l, vecType, ValueRange{sum}, {},
              [&](OpBuilder &eb, Location el, ValueRange args) {
                Value cc = linalg::IndexOp::create(eb, el, 0);
                Value diag = arith::CmpIOp::create(
                    eb, el, arith::CmpIPredicate::eq, cc, i);
                Value e = arith::SelectOp::create(eb, el, diag,
                                                  f32Const(eb, el, 1.0),
                                                  f32Const(eb, el, 0.0));
                return arith::SubFOp::create(eb, el, e, args[0]);
              });
          Value updated = tensor::InsertSliceOp::create(b, l, row, t, offsets,
                                                        sizes, strides);
          scf::YieldOp::create(b, l, updated);
        });
    rewriter.replaceOp(op, rows.getResult(0));
    return success();
  }
};

struct ConvertGDNToLinalgPass
    : public gdn::impl::ConvertGDNToLinalgBase<ConvertGDNToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           func::FuncDialect, linalg::LinalgDialect,
                           math::MathDialect, memref::MemRefDialect,
                           scf::SCFDialect, tensor::TensorDialect>();
    target.addIllegalDialect<GDNDialect>();
    // Program ids are resolved by the target: gdn-program-ids-to-args on the
    // CPU, block ids on the GPU.
    target.addLegalOp<ProgramIdOp>();
    RewritePatternSet patterns(ctx);
    populateGDNToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::gdn::populateGDNToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<TileLoadLowering, TileStoreLowering, StateLoadLowering,
               StateStoreLowering, PageLookupLowering, MaskRowsLowering,
               GateLowering, SigmoidLowering, CumsumLowering, L2NormLowering,
               ScaleRowsLowering, MatmulLowering, TriInverseLowering>(
      patterns.getContext());
}
