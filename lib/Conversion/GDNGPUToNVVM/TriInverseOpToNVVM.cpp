//===- TriInverseOpToNVVM.cpp - (I + A)^-1 by blocks, all threads busy ----===//
//
// Tm = (I + A)^-1 for strictly lower-triangular A, L x L, L = 16 * 2^m:
//
//  1. Every 16 x 16 diagonal block is inverted by forward substitution, one
//     thread per (block, column), the column in registers (fully unrolled,
//     branch-free: 120 multiply-adds a thread). The same thread clears its
//     column above the diagonal blocks.
//  2. Blocks are merged in levels s = 16, 32, .., L / 2. For each diagonal
//     2s x 2s block [[M11, 0], [A21, M22]] whose halves are already
//     inverted, the lower-left block of its inverse is -T22 (A21 T11): two
//     s x s x s products, spread over all threads (a few consecutive
//     outputs each), with a barrier after each.
//
// For L = 64 on 128 threads that is 5 barriers and about 800 multiply-adds
// a thread. Solving one column per thread instead (the fallback below, for
// other sizes) leaves thread 0 with L^2 / 2 dependent steps while most
// threads wait: 40% of the fused kernel's time on the H200.
//
// A and Tm live in the scratch area with rows padded to L + 4 floats, so
// that the 8 rows a warp reads at once fall in distinct banks.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
constexpr int64_t kDiagonalBlock = 16;
constexpr int64_t kRowPadding = 4;
/// Most consecutive outputs one thread computes in a merge product.
constexpr int64_t kMaxOutputsPerThread = 8;

bool blockedInverseApplies(int64_t l, int64_t threads) {
  return l % kDiagonalBlock == 0 && llvm::isPowerOf2_64(l / kDiagonalBlock) &&
         l <= threads;
}

/// Index arithmetic on `index` values with constants folded in.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, int64_t v) { return v ? arith::AddIOp::create(b, loc, x, c(v)) : x; }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t v) { return arith::MulIOp::create(b, loc, x, c(v)); }
  Value div(Value x, int64_t v) { return arith::DivUIOp::create(b, loc, x, c(v)); }
  Value rem(Value x, int64_t v) { return arith::RemUIOp::create(b, loc, x, c(v)); }
  Value ult(Value x, int64_t v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(v));
  }
};

/// Runs `body` in the threads for which `cond` holds (all when null).
void inThreads(OpBuilder &b, Location loc, Value cond,
               llvm::function_ref<void()> body) {
  if (!cond)
    return body();
  auto guard = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(guard.thenBlock());
  body();
}

struct TriInverseByBlocks : OpConversionPattern<gdn::TriInverseOp> {
  TriInverseByBlocks(TileTypeConverter &converter, MLIRContext *ctx,
                     SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx, /*benefit=*/2), plan(plan) {}

  LogicalResult
  matchAndRewrite(gdn::TriInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    auto layout = getDistributedLayout(type);
    if (!layout)
      return failure();
    const int64_t l = type.getDimSize(0), threads = layout.getNumThreads();
    if (!blockedInverseApplies(l, threads))
      return rewriter.notifyMatchFailure(op, "not 16 * 2^m rows on enough threads");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    IndexMath im{b, loc};
    const int64_t stride = l + kRowPadding;
    Type f32 = b.getF32Type();
    Value a = sharedView(b, loc, plan.scratchOffset(), l * stride, f32);
    Value t = sharedView(b, loc, plan.scratchOffset() + l * stride * 4,
                         l * stride, f32);
    Value p = sharedView(b, loc, plan.scratchOffset() + 2 * l * stride * 4,
                         l * l / 4, f32);
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1));
    Value tid = threadIdHere(b, loc);
    auto load = [&](Value buf, Value index) {
      return memref::LoadOp::create(b, loc, buf, index).getResult();
    };
    auto fma = [&](Value x, Value y, Value acc) {
      return math::FmaOp::create(b, loc, x, y, acc).getResult();
    };

    // A into the scratch area, padded rows. The area may still be read by
    // the previous move.
    emitBlockBarrier(b, loc);
    auto coords = emitThreadCoords(b, loc, type);
    for (auto [reg, coord] : llvm::enumerate(coords)) {
      Value v = vector::ExtractOp::create(b, loc, adaptor.getInput(), reg);
      memref::StoreOp::create(b, loc, v, a,
                              im.add(im.mul(coord[0], stride), coord[1]));
    }
    emitBlockBarrier(b, loc);

    // 1. Thread (block bl, column j < 16) inverts column j of diagonal
    // block bl: x_i = 0 (i < j), 1 (i = j), -sum_k A_ik x_k (i > j).
    inThreads(b, loc, im.ult(tid, l), [&] {
      Value j = im.rem(tid, kDiagonalBlock);
      Value blockStart = im.mul(im.div(tid, kDiagonalBlock), kDiagonalBlock);
      Value corner = im.mul(blockStart, stride + 1);
      // The merges read whole blocks of Tm, so the part above the diagonal
      // blocks must hold zeros: each thread clears its column there.
      scf::ForOp::create(b, loc, im.c(0), blockStart, im.c(1), ValueRange{},
                         [&](OpBuilder &fb, Location fl, Value r, ValueRange) {
                           IndexMath fm{fb, fl};
                           memref::StoreOp::create(
                               fb, fl, zero, t, fm.add(fm.mul(r, stride), tid));
                           scf::YieldOp::create(fb, fl);
                         });
      SmallVector<Value> x;
      for (int64_t i = 0; i < kDiagonalBlock; ++i) {
        Value sum = zero;
        for (int64_t k = 0; k < i; ++k)
          sum = fma(load(a, im.add(corner, i * stride + k)), x[k], sum);
        Value below = arith::NegFOp::create(b, loc, sum);
        Value onDiagonal = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, j, im.c(i));
        Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                            j, im.c(i));
        Value xi = arith::SelectOp::create(
            b, loc, above, zero,
            arith::SelectOp::create(b, loc, onDiagonal, one, below));
        x.push_back(xi);
        memref::StoreOp::create(b, loc, xi, t,
                                im.add(im.add(corner, j), i * stride));
      }
    });
    emitBlockBarrier(b, loc);

    // 2. Merge levels.
    for (int64_t s = kDiagonalBlock; s < l; s *= 2) {
      const int64_t outputs = l / (2 * s) * s * s;
      int64_t perThread = std::max<int64_t>(1, outputs / threads);
      perThread = std::min<int64_t>(
          {int64_t(llvm::bit_floor(uint64_t(perThread))), kMaxOutputsPerThread, s});
      const int64_t groups = outputs / perThread, rowGroups = s / perThread;
      // Group g: pair q (rows 2 s q ..), row i of the s x s block, columns
      // c0 .. c0 + perThread - 1.
      auto product = [&](bool second) {
        for (int64_t first = 0; first < groups; first += threads) {
          Value g = im.add(tid, first);
          Value cond = groups - first < threads ? im.ult(g, groups) : Value();
          inThreads(b, loc, cond, [&] {
            Value q = im.div(g, s * rowGroups);
            Value i = im.rem(im.div(g, rowGroups), s);
            Value c0 = im.mul(im.rem(g, rowGroups), perThread);
            Value r0 = im.mul(q, 2 * s);
            // Where row r0 + s + i of the level's lower half starts, plus r0.
            Value lowRow = im.add(im.mul(im.add(im.add(r0, i), s), stride), r0);
            Value pBase = im.add(im.mul(q, s * s), c0);
            SmallVector<Value> acc(perThread, zero);
            for (int64_t k = 0; k < s; ++k) {
              // first:  P = A21 T11:  A[r0+s+i][r0+k] * T[r0+k][r0+c0+u]
              // second: T21 = -T22 P: T[r0+s+i][r0+s+k] * P[q][k][c0+u]
              Value lhs = second ? load(t, im.add(lowRow, s + k))
                                 : load(a, im.add(lowRow, k));
              Value rhsBase =
                  second ? im.add(pBase, k * s)
                         : im.add(im.add(im.mul(r0, stride + 1), c0), k * stride);
              for (int64_t u = 0; u < perThread; ++u)
                acc[u] = fma(lhs, load(second ? p : t, im.add(rhsBase, u)), acc[u]);
            }
            for (int64_t u = 0; u < perThread; ++u) {
              if (second)
                memref::StoreOp::create(b, loc,
                                        arith::NegFOp::create(b, loc, acc[u]), t,
                                        im.add(im.add(lowRow, c0), u));
              else
                memref::StoreOp::create(b, loc, acc[u], p,
                                        im.add(im.add(pBase, im.mul(i, s)), u));
            }
          });
        }
        emitBlockBarrier(b, loc);
      };
      product(/*second=*/false);
      product(/*second=*/true);
    }

    SmallVector<Value> out;
    for (const auto &coord : coords)
      out.push_back(load(t, im.add(im.mul(coord[0], stride), coord[1])));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(type), out);
    return success();
  }

  SharedMemoryPlan &plan;
};

/// The fallback for sizes the blocked form does not take: thread j solves
/// column j of (I + A) x = e_j by forward substitution in shared memory.
struct TriInverseThroughShared : OpConversionPattern<gdn::TriInverseOp> {
  TriInverseThroughShared(TileTypeConverter &converter, MLIRContext *ctx,
                          SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx), plan(plan) {}

  LogicalResult
  matchAndRewrite(gdn::TriInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    if (!getDistributedLayout(type))
      return failure();
    int64_t l = type.getDimSize(0);
    if (l > getDistributedLayout(type).getNumThreads())
      return rewriter.notifyMatchFailure(op, "one thread per column is needed");
    Location loc = op.getLoc();
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
    Value a = writeToScratch(rewriter, loc, plan, adaptor.getInput(), type);
    Value t = sharedView(rewriter, loc, plan.scratchOffset() + l * l * 4, l * l,
                         rewriter.getF32Type());
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    Value one = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(1));
    Value j = threadIdHere(rewriter, loc);
    Value mine = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, j, c(l));
    auto owner = scf::IfOp::create(rewriter, loc, mine, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(owner.thenBlock());
      auto at = [&](OpBuilder &b, Location lc, Value row, Value col) -> ValueRange {
        Value index = arith::AddIOp::create(
            b, lc, arith::MulIOp::create(b, lc, row, c(l)), col);
        return index.getDefiningOp()->getResults();
      };
      // Above the diagonal 0, on it 1.
      scf::ForOp::create(rewriter, loc, c(0), j, c(1), ValueRange{},
                         [&](OpBuilder &b, Location lc, Value i, ValueRange) {
                           memref::StoreOp::create(b, lc, zero, t, at(b, lc, i, j));
                           scf::YieldOp::create(b, lc);
                         });
      memref::StoreOp::create(rewriter, loc, one, t, at(rewriter, loc, j, j));
      // Below: T[i][j] = -sum_{k = j}^{i - 1} A[i][k] T[k][j].
      Value first = arith::AddIOp::create(rewriter, loc, j, c(1));
      scf::ForOp::create(
          rewriter, loc, first, c(l), c(1), ValueRange{},
          [&](OpBuilder &b, Location lc, Value i, ValueRange) {
            auto dot = scf::ForOp::create(
                b, lc, j, i, c(1), ValueRange{zero},
                [&](OpBuilder &bb, Location lk, Value k, ValueRange acc) {
                  Value aik = memref::LoadOp::create(bb, lk, a, at(bb, lk, i, k));
                  Value tkj = memref::LoadOp::create(bb, lk, t, at(bb, lk, k, j));
                  Value s = arith::AddFOp::create(
                      bb, lk, acc[0], arith::MulFOp::create(bb, lk, aik, tkj));
                  scf::YieldOp::create(bb, lk, ValueRange{s});
                });
            Value neg = arith::NegFOp::create(b, lc, dot.getResult(0));
            memref::StoreOp::create(b, lc, neg, t, at(b, lc, i, j));
            scf::YieldOp::create(b, lc);
          });
    }
    emitBlockBarrier(rewriter, loc);
    SmallVector<Value> out;
    for (const auto &coord : emitThreadCoords(rewriter, loc, type))
      out.push_back(memref::LoadOp::create(
          rewriter, loc, t, rowMajorIndex(rewriter, loc, coord, type.getShape())));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(type), out);
    return success();
  }

  SharedMemoryPlan &plan;
};
} // namespace

int64_t gdn_gpu::triInverseScratchBytes(RankedTensorType type) {
  auto layout = getDistributedLayout(type);
  int64_t l = type.getDimSize(0);
  if (layout && blockedInverseApplies(l, layout.getNumThreads()))
    return (2 * l * (l + kRowPadding) + l * l / 4) * 4;
  return 2 * l * l * 4;
}

void gdn_gpu::populateTriInverseOpToNVVMPatterns(TileTypeConverter &converter,
                                                 RewritePatternSet &patterns,
                                                 SharedMemoryPlan &plan) {
  patterns.add<TriInverseByBlocks, TriInverseThroughShared>(
      converter, patterns.getContext(), plan);
}
