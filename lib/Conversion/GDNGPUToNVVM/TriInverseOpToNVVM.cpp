//===- TriInverseOpToNVVM.cpp - (I + A)^-1 by blocks, all threads busy ----===//
//
// Tm = (I + A)^-1 for strictly lower-triangular A, L x L, L = 16 * 2^m:
//
//  1. Every 8 x 8 diagonal block is inverted by forward substitution, one
//     thread per (block, column), the column in registers (fully unrolled,
//     branch-free: 28 multiply-adds a thread). The same thread clears its
//     column above the diagonal blocks.
//  2. Blocks are merged in levels s = 8, 16, .., L / 2. For each diagonal
//     2s x 2s block [[M11, 0], [A21, M22]] whose halves are already
//     inverted, the lower-left block of its inverse is -T22 (A21 T11): two
//     s x s x s products with a barrier after each. Level 8 runs on the
//     FMA pipes (a few outputs a thread); levels from 16 on run on the
//     tensor cores, mma.sync m16n8k8 in three tf32 passes (fp32's
//     accuracy), a 16 x 8 tile of outputs per warp.
//
// For L = 64 on 256 threads that is 9 barriers (one before A is written,
// one after, one after phase 1, one after each product), 28 dependent multiply-adds
// on a quarter of the threads, 16 on all, and 36 mma a warp. The H200
// profile of the fused kernel (2026-12-01) had the former form (16 x 16
// blocks, every level on FMAs: 120 dependent multiply-adds, then up to 512
// fmas a thread limited by shared-memory reads) at 23% of a chunk. Solving
// one column per thread instead (the fallback below, for other sizes)
// leaves thread 0 with L^2 / 2 dependent steps while most threads wait.
//
// A and Tm live in the scratch area with rows padded to L + 4 floats, so
// that the 8 rows a warp reads at once fall in distinct banks.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
constexpr int64_t kDiagonalBlock = 8;
constexpr int64_t kRowPadding = 4;
/// Merge levels with blocks this large or larger run on the tensor cores.
constexpr int64_t kMmaBlock = 16;
/// P's rows are padded to s + 8 floats.
constexpr int64_t kProductPadding = 8;
/// Most consecutive outputs one thread computes in a merge product.
constexpr int64_t kMaxOutputsPerThread = 8;

/// Floats of the merge products P: l / (2 s) pairs of s x (s + 8), largest
/// at s = l / 2.
int64_t productFloats(int64_t l) { return l / 2 * (l / 2 + kProductPadding); }

bool blockedInverseApplies(int64_t l, int64_t threads) {
  return l % kMmaBlock == 0 && llvm::isPowerOf2_64(l / kMmaBlock) &&
         l <= threads && threads % 32 == 0;
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

/// Runs `body(job)` for jobs 0 .. jobs - 1 spread over `workers` workers
/// (threads or warps): worker w takes jobs w, w + workers, ...; only a last
/// round with fewer jobs than workers is guarded.
void forEachJob(OpBuilder &b, Location loc, IndexMath &im, Value worker,
                int64_t jobs, int64_t workers,
                llvm::function_ref<void(Value)> body) {
  for (int64_t first = 0; first < jobs; first += workers) {
    Value job = im.add(worker, first);
    Value cond = jobs - first < workers ? im.ult(job, jobs) : Value();
    inThreads(b, loc, cond, [&] { body(job); });
  }
}

Value loadAt(OpBuilder &b, Location loc, Value buf, Value index) {
  return memref::LoadOp::create(b, loc, buf, index).getResult();
}

/// Where one merge product reads and writes, for pair q of level s (the
/// 2s x 2s diagonal block at row and column r0 = 2 s q):
///   first:  P[q] = A21 T11:   lhs A[r0+s+i][r0+k],   rhs T[r0+k][r0+c]
///   second: T21 = -T22 P[q]:  lhs T[r0+s+i][r0+s+k], rhs P[q][k][c]
struct MergeOperands {
  IndexMath &im;
  Value a, t, p;
  int64_t stride, s, pStride;
  bool second;

  Value lhsBuffer() const { return second ? t : a; }
  Value rhsBuffer() const { return second ? p : t; }
  /// Index of lhs(i, k) for pair row r0.
  Value lhs(Value r0, Value i, Value k) const {
    Value row = im.add(im.add(r0, i), s);
    return im.add(im.add(im.mul(row, stride), im.add(r0, k)), second ? s : 0);
  }
  /// Index of rhs(k, c) for pair q (row r0).
  Value rhs(Value q, Value r0, Value k, Value c) const {
    if (second)
      return im.add(im.add(im.mul(q, s * pStride), im.mul(k, pStride)), c);
    return im.add(im.mul(im.add(r0, k), stride), im.add(r0, c));
  }
  /// Index the (i, c) output goes to: P[q] or T21.
  Value out(Value q, Value r0, Value i, Value c) const {
    if (second)
      return im.add(im.mul(im.add(im.add(r0, i), s), stride), im.add(r0, c));
    return im.add(im.add(im.mul(q, s * pStride), im.mul(i, pStride)), c);
  }
};

/// A merge product on the FMA pipes: each thread a few consecutive outputs
/// of one row (small levels, where an mma tile would be mostly empty).
void emitFmaProduct(OpBuilder &b, Location loc, Value a, Value t, Value p,
                    int64_t l, int64_t s, int64_t pStride, int64_t threads,
                    bool second) {
  IndexMath im{b, loc};
  MergeOperands ops{im, a, t, p, l + kRowPadding, s, pStride, second};
  const int64_t outputs = l / (2 * s) * s * s;
  int64_t perThread = std::max<int64_t>(1, outputs / threads);
  perThread = std::min<int64_t>(
      {int64_t(llvm::bit_floor(uint64_t(perThread))), kMaxOutputsPerThread, s});
  const int64_t groups = outputs / perThread, rowGroups = s / perThread;
  Value tid = threadIdHere(b, loc);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  // Group g: pair q, row i of the s x s block, columns c0 .. c0 + perThread - 1.
  forEachJob(b, loc, im, tid, groups, threads, [&](Value g) {
    Value q = im.div(g, s * rowGroups);
    Value i = im.rem(im.div(g, rowGroups), s);
    Value c0 = im.mul(im.rem(g, rowGroups), perThread);
    Value r0 = im.mul(q, 2 * s);
    SmallVector<Value> acc(perThread, zero);
    for (int64_t k = 0; k < s; ++k) {
      Value lhs = loadAt(b, loc, ops.lhsBuffer(), ops.lhs(r0, i, im.c(k)));
      Value rhsBase = ops.rhs(q, r0, im.c(k), c0);
      for (int64_t u = 0; u < perThread; ++u)
        acc[u] = math::FmaOp::create(
            b, loc, lhs, loadAt(b, loc, ops.rhsBuffer(), im.add(rhsBase, u)),
            acc[u]);
    }
    Value outBase = ops.out(q, r0, i, c0);
    for (int64_t u = 0; u < perThread; ++u) {
      Value v = second ? arith::NegFOp::create(b, loc, acc[u]).getResult()
                       : acc[u];
      memref::StoreOp::create(b, loc, v, second ? t : p, im.add(outBase, u));
    }
  });
}

/// x as the sum of two tf32 values (high: x with its low 13 mantissa bits
/// cleared; low: the exact rest, which the mma truncates to tf32), as i32
/// operands of an mma.
std::pair<Value, Value> splitTf32(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value high = arith::AndIOp::create(
      b, loc, bits,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(0xffffe000))));
  Value rest = arith::SubFOp::create(
      b, loc, x, arith::BitcastOp::create(b, loc, b.getF32Type(), high));
  return {high, arith::BitcastOp::create(b, loc, i32, rest)};
}

/// A merge product on the tensor cores: each warp computes 16 x 8 tiles of
/// outputs with mma.sync m16n8k8 in three tf32 passes (lo*hi + hi*lo +
/// hi*hi, small terms first). hi is x truncated to tf32, lo the exact rest
/// (up to 2^-10 |x|), which the mma reads as tf32 (ignoring its low bits,
/// as the tf32 wgmma path does with fp32 operands in shared memory):
/// products good to about 2^-20, against 2^-11 for one pass; T is then
/// rounded to the MMA operand type (bf16: 2^-8) for W and U. Rounding hi
/// to nearest would halve lo again; not measured. Operands are read from
/// shared memory straight into the mma fragments. Every lane of a warp
/// runs a job or none (the guard is on the warp index): mma.sync needs
/// the whole warp.
void emitMmaProduct(OpBuilder &b, Location loc, Value a, Value t, Value p,
                    int64_t l, int64_t s, int64_t pStride, int64_t threads,
                    bool second) {
  IndexMath im{b, loc};
  MergeOperands ops{im, a, t, p, l + kRowPadding, s, pStride, second};
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  auto accType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  const int64_t warps = threads / 32, mTiles = s / 16, nTiles = s / 8;
  const int64_t jobs = l / (2 * s) * mTiles * nTiles;
  Value tid = threadIdHere(b, loc);
  Value warp = im.div(tid, 32), lane = im.rem(tid, 32);
  // Fragment coordinates (PTX ISA, mma.m16n8k8 .tf32): a0 (g, t), a1
  // (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4); b0 (t, g), b1 (t + 4, g);
  // c0 / c1 (g, 2t / 2t + 1), c2 / c3 (g + 8, 2t / 2t + 1).
  Value group = im.div(lane, 4), inGroup = im.rem(lane, 4);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  forEachJob(b, loc, im, warp, jobs, warps, [&](Value job) {
    Value q = im.div(job, mTiles * nTiles);
    Value i0 = im.mul(im.rem(im.div(job, nTiles), mTiles), 16);
    Value c0 = im.mul(im.rem(job, nTiles), 8);
    Value r0 = im.mul(q, 2 * s);
    Value row = im.add(i0, group), col = im.add(c0, group);
    SmallVector<Value> acc(4, zero);
    for (int64_t k = 0; k < s; k += 8) {
      Value k0 = im.add(inGroup, k), k1 = im.add(inGroup, k + 4);
      SmallVector<Value> aHigh, aLow, bHigh, bLow;
      for (auto [i, kk] : {std::pair{row, k0}, std::pair{im.add(row, 8), k0},
                           std::pair{row, k1}, std::pair{im.add(row, 8), k1}}) {
        auto [hi, lo] = splitTf32(
            b, loc, loadAt(b, loc, ops.lhsBuffer(), ops.lhs(r0, i, kk)));
        aHigh.push_back(hi);
        aLow.push_back(lo);
      }
      for (Value kk : {k0, k1}) {
        auto [hi, lo] = splitTf32(
            b, loc, loadAt(b, loc, ops.rhsBuffer(), ops.rhs(q, r0, kk, col)));
        bHigh.push_back(hi);
        bLow.push_back(lo);
      }
      auto mma = [&](ValueRange lhs, ValueRange rhs) {
        Value d = NVVM::MmaOp::create(
            b, loc, accType, lhs, rhs, acc, ArrayRef<int64_t>{16, 8, 8},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                          NVVM::MMATypes::tf32},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t r = 0; r < 4; ++r)
          acc[r] = LLVM::ExtractValueOp::create(b, loc, d, r);
      };
      mma(aLow, bHigh);
      mma(aHigh, bLow);
      mma(aHigh, bHigh);
    }
    Value outCol = im.add(c0, im.mul(inGroup, 2));
    for (int64_t r = 0; r < 4; ++r) {
      Value i = r < 2 ? row : im.add(row, 8);
      Value v = second ? arith::NegFOp::create(b, loc, acc[r]).getResult()
                       : acc[r];
      memref::StoreOp::create(b, loc, v, second ? t : p,
                              ops.out(q, r0, i, im.add(outCol, r % 2)));
    }
  });
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
                         productFloats(l), f32);
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

    // 1. Thread (block bl, column j < 8) inverts column j of diagonal
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

    // 2. Merge levels. P holds every pair's s x s product A21 T11 with rows
    // padded to s + 8 floats (the mma B fragments read from P then hit
    // distinct banks; those read from T, stride L + 4, conflict two-way).
    for (int64_t s = kDiagonalBlock; s < l; s *= 2) {
      const int64_t pStride = s + kProductPadding;
      auto levelProduct = [&](bool second) {
        if (s >= kMmaBlock)
          emitMmaProduct(b, loc, a, t, p, l, s, pStride, threads, second);
        else
          emitFmaProduct(b, loc, a, t, p, l, s, pStride, threads, second);
        emitBlockBarrier(b, loc);
      };
      levelProduct(/*second=*/false);
      levelProduct(/*second=*/true);
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
    return (2 * l * (l + kRowPadding) + productFloats(l)) * 4;
  return 2 * l * l * 4;
}

void gdn_gpu::populateTriInverseOpToNVVMPatterns(TileTypeConverter &converter,
                                                 RewritePatternSet &patterns,
                                                 SharedMemoryPlan &plan) {
  patterns.add<TriInverseByBlocks, TriInverseThroughShared>(
      converter, patterns.getContext(), plan);
}
