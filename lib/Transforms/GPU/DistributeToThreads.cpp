//===- DistributeToThreads.cpp - tile work over a block's threads ---------===//
//
// After gdn-gpu-outline every thread of a block runs the whole kernel body.
// Work on tiles is split here: each linalg op, memref.copy and scf.forall
// becomes a loop over its parallel iterations strided by the block size,
// followed by a barrier; matmul-shaped contractions go to tensor cores
// (nvgpu.mma.sync). Scalar stores are made by thread 0 only.
//
//===----------------------------------------------------------------------===//

#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUDISTRIBUTE
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;

namespace {

/// Thread id and block size of the kernel being distributed.
struct Threads {
  Value tid;
  int64_t count;
};

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

bool isDistributable(Operation *op) {
  return isa<linalg::LinalgOp, memref::CopyOp, scf::ForallOp>(op);
}

/// Every thread takes iterations tid, tid + count, ... of `extents`
/// (delinearised row-major) and runs `body` on them. The loop counts rounds
/// from 0 so that, for static extents, its trip count is a constant: LLVM
/// then unrolls it and overlaps the rounds' memory accesses.
void threadLoop(OpBuilder &b, Location loc, const Threads &threads,
                ArrayRef<Value> extents,
                function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  Value total = cIndex(b, loc, 1);
  for (Value e : extents)
    total = arith::MulIOp::create(b, loc, total, e);
  Value count = cIndex(b, loc, threads.count);
  // rounds = ceil(total / count)
  Value rounds = arith::DivUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, total, cIndex(b, loc, threads.count - 1)),
      count);
  std::optional<int64_t> staticTotal = 1;
  for (Value e : extents) {
    std::optional<int64_t> c = getConstantIntValue(e);
    staticTotal = c && staticTotal ? std::optional<int64_t>(*staticTotal * *c)
                                   : std::nullopt;
  }
  bool exact = staticTotal && *staticTotal % threads.count == 0;
  scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), rounds, cIndex(b, loc, 1), ValueRange{},
      [&](OpBuilder &lb, Location ll, Value round, ValueRange) {
        Value lin = arith::AddIOp::create(
            lb, ll, arith::MulIOp::create(lb, ll, round, count), threads.tid);
        auto emit = [&](OpBuilder &eb, Location el) {
          SmallVector<Value> ivs(extents.size());
          Value rest = lin;
          for (size_t d = extents.size(); d-- > 0;) {
            ivs[d] = arith::RemUIOp::create(eb, el, rest, extents[d]);
            rest = arith::DivUIOp::create(eb, el, rest, extents[d]);
          }
          body(eb, el, ivs);
        };
        if (exact) {
          emit(lb, ll);
        } else {
          Value inside = arith::CmpIOp::create(
              lb, ll, arith::CmpIPredicate::ult, lin, total);
          auto guard = scf::IfOp::create(lb, ll, inside, /*withElse=*/false);
          OpBuilder gb = OpBuilder::atBlockBegin(guard.thenBlock());
          emit(gb, ll);
        }
        scf::YieldOp::create(lb, ll);
      });
}

/// Indices of an operand for loop ivs through a projected-permutation map.
SmallVector<Value> applyMap(AffineMap map, ValueRange ivs) {
  SmallVector<Value> idx;
  for (AffineExpr e : map.getResults())
    idx.push_back(ivs[cast<AffineDimExpr>(e).getPosition()]);
  return idx;
}

/// Any linalg op on memrefs with static loop ranges and projected
/// permutation maps: parallel iterations over threads, reductions serial.
LogicalResult distributeLinalg(linalg::LinalgOp op, const Threads &threads) {
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return op.emitError("gdn-gpu-distribute needs static loop ranges");
  for (AffineMap m : op.getIndexingMapsArray())
    if (!m.isProjectedPermutation())
      return op.emitError("gdn-gpu-distribute needs projected-permutation "
                          "indexing maps");
  auto iterators = op.getIteratorTypesArray();
  OpBuilder b(op);
  SmallVector<Value> parallelExtents;
  SmallVector<unsigned> parallelDims, reductionDims;
  for (auto [d, it] : llvm::enumerate(iterators)) {
    if (it == utils::IteratorType::parallel) {
      parallelDims.push_back(d);
      parallelExtents.push_back(cIndex(b, loc, ranges[d]));
    } else {
      reductionDims.push_back(d);
    }
  }
  Block *payload = op.getBlock();
  auto maps = op.getIndexingMapsArray();
  threadLoop(b, loc, threads, parallelExtents,
             [&](OpBuilder &pb, Location pl, ValueRange pivs) {
               SmallVector<Value> ivs(ranges.size());
               for (auto [i, d] : llvm::enumerate(parallelDims))
                 ivs[d] = pivs[i];
               // One serial loop per reduction dimension, innermost body
               // loads operands, runs the payload and stores the results.
               std::function<void(OpBuilder &, unsigned)> nest =
                   [&](OpBuilder &nb, unsigned level) {
                     if (level < reductionDims.size()) {
                       scf::ForOp::create(
                           nb, pl, cIndex(nb, pl, 0),
                           cIndex(nb, pl, ranges[reductionDims[level]]),
                           cIndex(nb, pl, 1), ValueRange{},
                           [&](OpBuilder &rb, Location, Value iv, ValueRange) {
                             ivs[reductionDims[level]] = iv;
                             nest(rb, level + 1);
                             scf::YieldOp::create(rb, pl);
                           });
                       return;
                     }
                     IRMapping map;
                     for (OpOperand &operand : op->getOpOperands()) {
                       BlockArgument arg =
                           payload->getArgument(operand.getOperandNumber());
                       Value v = operand.get();
                       if (isa<MemRefType>(v.getType())) {
                         if (arg.use_empty())
                           continue;
                         v = memref::LoadOp::create(
                             nb, pl, v,
                             applyMap(maps[operand.getOperandNumber()], ivs));
                       }
                       map.map(arg, v);
                     }
                     for (Operation &inner : payload->without_terminator()) {
                       if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
                         map.map(index.getResult(), ivs[index.getDim()]);
                         continue;
                       }
                       nb.clone(inner, map);
                     }
                     auto yield = cast<linalg::YieldOp>(payload->getTerminator());
                     for (auto [i, init] : llvm::enumerate(op.getDpsInits())) {
                       unsigned number = op.getNumDpsInputs() + i;
                       memref::StoreOp::create(
                           nb, pl, map.lookupOrDefault(yield.getOperand(i)),
                           init, applyMap(maps[number], ivs));
                     }
                   };
               nest(pb, 0);
             });
  return success();
}

bool mmaCompatible(linalg::LinalgOp op) {
  if (!op->hasAttr("gdn.contraction") || op.getNumLoops() != 3 ||
      op.getNumDpsInputs() != 2)
    return false;
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  return r[0] % 16 == 0 && r[1] % 8 == 0 && r[2] % 8 == 0;
}

/// Lane coordinates of the m16n8 mma fragments (PTX ISA): lane = 4 g + t.
struct Lanes {
  Value warp, lane, group, inGroup;
};

Lanes lanesOf(OpBuilder &b, Location loc, const Threads &threads) {
  Value c32 = cIndex(b, loc, 32), c4 = cIndex(b, loc, 4);
  Lanes l;
  l.warp = arith::DivUIOp::create(b, loc, threads.tid, c32);
  l.lane = arith::RemUIOp::create(b, loc, threads.tid, c32);
  l.group = arith::DivUIOp::create(b, loc, l.lane, c4);
  l.inGroup = arith::RemUIOp::create(b, loc, l.lane, c4);
  return l;
}

/// A 16 x 8 tile of C held by one warp: its tile coordinates and where this
/// lane's four accumulators live, (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
struct CTile {
  Value tm, tn;
  Value rows[4], cols[4];
};

Value addConst(OpBuilder &b, Location loc, Value x, int64_t c) {
  return arith::AddIOp::create(b, loc, x, cIndex(b, loc, c));
}
Value mulConst(OpBuilder &b, Location loc, Value x, int64_t c) {
  return arith::MulIOp::create(b, loc, x, cIndex(b, loc, c));
}

/// Every warp walks the 16 x 8 tiles of an M x N result: warp w takes tiles
/// w, w + warps, ...
void forEachCTile(OpBuilder &b, Location loc, const Threads &threads,
                  const Lanes &lanes, int64_t M, int64_t N,
                  function_ref<void(OpBuilder &, const CTile &)> body) {
  int64_t tilesN = N / 8;
  scf::ForOp::create(
      b, loc, lanes.warp, cIndex(b, loc, (M / 16) * tilesN),
      cIndex(b, loc, threads.count / 32), ValueRange{},
      [&](OpBuilder &tb, Location, Value tile, ValueRange) {
        CTile t;
        t.tm = arith::DivUIOp::create(tb, loc, tile, cIndex(tb, loc, tilesN));
        t.tn = arith::RemUIOp::create(tb, loc, tile, cIndex(tb, loc, tilesN));
        Value r0 = arith::AddIOp::create(tb, loc, mulConst(tb, loc, t.tm, 16),
                                         lanes.group);
        Value r1 = addConst(tb, loc, r0, 8);
        Value c0 = arith::AddIOp::create(tb, loc, mulConst(tb, loc, t.tn, 8),
                                         mulConst(tb, loc, lanes.inGroup, 2));
        Value c1 = addConst(tb, loc, c0, 1);
        Value rows[4] = {r0, r0, r1, r1}, cols[4] = {c0, c1, c0, c1};
        llvm::copy(rows, t.rows);
        llvm::copy(cols, t.cols);
        body(tb, t);
        scf::YieldOp::create(tb, loc);
      });
}

/// The lane's four accumulators of a C tile, read from / written to C.
SmallVector<Value> loadCFragment(OpBuilder &b, Location loc, Value out,
                                 AffineMap map, const CTile &t, Value zero) {
  SmallVector<Value> acc;
  for (int e = 0; e < 4; ++e)
    acc.push_back(memref::LoadOp::create(
        b, loc, out, applyMap(map, ValueRange{t.rows[e], t.cols[e], zero})));
  return acc;
}
void storeCFragment(OpBuilder &b, Location loc, ValueRange acc, Value out,
                    AffineMap map, const CTile &t, Value zero) {
  for (int e = 0; e < 4; ++e)
    memref::StoreOp::create(
        b, loc, acc[e], out,
        applyMap(map, ValueRange{t.rows[e], t.cols[e], zero}));
}

/// C[M, N] += A B as m16n8k8 TF32 tensor-core products, one 16 x 8 tile of
/// C per warp at a time; operands are read through the op's indexing maps
/// (so transposed operands need no copy), accumulation in fp32.
void distributeMatmul(linalg::LinalgOp op, const Threads &threads) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  int64_t M = r[0], N = r[1], K = r[2];
  auto maps = op.getIndexingMapsArray();
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value out = op.getDpsInits()[0];
  Type f32 = b.getF32Type();
  Value zero = cIndex(b, loc, 0);
  auto load = [&](OpBuilder &lb, Value src, AffineMap map, Value i, Value j,
                  Value k) -> Value {
    Value v = memref::LoadOp::create(lb, loc, src,
                                     applyMap(map, ValueRange{i, j, k}));
    return v.getType() == f32 ? v : arith::ExtFOp::create(lb, loc, f32, v);
  };
  Lanes lanes = lanesOf(b, loc, threads);
  forEachCTile(b, loc, threads, lanes, M, N, [&](OpBuilder &tb, const CTile &t) {
    Value r0 = t.rows[0], r1 = t.rows[2];
    Value bCol = arith::AddIOp::create(tb, loc, mulConst(tb, loc, t.tn, 8),
                                       lanes.group);
    Value acc = vector::FromElementsOp::create(
        tb, loc, VectorType::get({2, 2}, f32),
        loadCFragment(tb, loc, out, maps[2], t, zero));
    auto kLoop = scf::ForOp::create(
        tb, loc, cIndex(tb, loc, 0), cIndex(tb, loc, K), cIndex(tb, loc, 8),
        ValueRange{acc},
        [&](OpBuilder &kb, Location, Value k0, ValueRange iter) {
          Value ka = arith::AddIOp::create(kb, loc, k0, lanes.inGroup);
          Value ka4 = addConst(kb, loc, ka, 4);
          // A fragment: (g, t), (g+8, t), (g, t+4), (g+8, t+4).
          Value a = vector::FromElementsOp::create(
              kb, loc, VectorType::get({4, 1}, f32),
              ValueRange{load(kb, lhs, maps[0], r0, zero, ka),
                         load(kb, lhs, maps[0], r1, zero, ka),
                         load(kb, lhs, maps[0], r0, zero, ka4),
                         load(kb, lhs, maps[0], r1, zero, ka4)});
          // B fragment: (t, g), (t+4, g).
          Value bm = vector::FromElementsOp::create(
              kb, loc, VectorType::get({2, 1}, f32),
              ValueRange{load(kb, rhs, maps[1], zero, bCol, ka),
                         load(kb, rhs, maps[1], zero, bCol, ka4)});
          Value next = nvgpu::MmaSyncOp::create(kb, loc, a, bm, iter[0],
                                                ArrayRef<int64_t>{16, 8, 8},
                                                /*tf32Enabled=*/true);
          scf::YieldOp::create(kb, loc, next);
        });
    SmallVector<Value> result;
    int64_t pos[4][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    for (auto &p : pos)
      result.push_back(vector::ExtractOp::create(tb, loc, kLoop.getResult(0),
                                                 ArrayRef<int64_t>{p[0], p[1]}));
    storeCFragment(tb, loc, result, out, maps[2], t, zero);
  });
}

/// Shared-memory slabs for the bf16 path: [128 rows][32 + 8 columns] each
/// for A and B^T; the 8 columns of padding keep ldmatrix rows 16-byte
/// aligned and spread them over the banks.
struct Slabs {
  Value a, b;
};
constexpr int64_t kSlabRows = 128, kSlabK = 32, kSlabStride = kSlabK + 8;

bool bf16Compatible(linalg::LinalgOp op) {
  if (!mmaCompatible(op))
    return false;
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  return r[0] <= kSlabRows && r[1] <= kSlabRows && r[2] % kSlabK == 0;
}

/// C[M, N] += A B with bf16 operands: per 32-wide K slab, all threads
/// convert A (M x 32) and B^T (N x 32) into shared memory, then each warp
/// takes 16 x 8 C tiles: C fragment from memory, two ldmatrix + m16n8k16
/// steps, C fragment back.
void distributeMatmulBF16(linalg::LinalgOp op, const Threads &threads,
                          const Slabs &slabs) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  int64_t M = r[0], N = r[1], K = r[2];
  auto maps = op.getIndexingMapsArray();
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value out = op.getDpsInits()[0];
  Type f32 = b.getF32Type(), bf16 = b.getBF16Type();
  Value zero = cIndex(b, loc, 0);
  auto toBF16 = [&](OpBuilder &lb, Value v) -> Value {
    if (v.getType() == bf16)
      return v;
    if (v.getType() != f32)
      v = arith::ExtFOp::create(lb, loc, f32, v);
    return arith::TruncFOp::create(lb, loc, bf16, v);
  };
  Lanes lanes = lanesOf(b, loc, threads);
  scf::ForOp::create(
      b, loc, zero, cIndex(b, loc, K), cIndex(b, loc, kSlabK), ValueRange{},
      [&](OpBuilder &sb, Location, Value k0, ValueRange) {
        // Stage the slab: A[m][k0 + c] and B[k0 + c][n] as bf16.
        SmallVector<Value> aExt{cIndex(sb, loc, M), cIndex(sb, loc, kSlabK)};
        threadLoop(sb, loc, threads, aExt,
                   [&](OpBuilder &lb, Location, ValueRange ivs) {
                     Value k = arith::AddIOp::create(lb, loc, k0, ivs[1]);
                     Value v = memref::LoadOp::create(
                         lb, loc, lhs, applyMap(maps[0], ValueRange{ivs[0], zero, k}));
                     memref::StoreOp::create(lb, loc, toBF16(lb, v), slabs.a, ivs);
                   });
        SmallVector<Value> bExt{cIndex(sb, loc, N), cIndex(sb, loc, kSlabK)};
        threadLoop(sb, loc, threads, bExt,
                   [&](OpBuilder &lb, Location, ValueRange ivs) {
                     Value k = arith::AddIOp::create(lb, loc, k0, ivs[1]);
                     Value v = memref::LoadOp::create(
                         lb, loc, rhs, applyMap(maps[1], ValueRange{zero, ivs[0], k}));
                     memref::StoreOp::create(lb, loc, toBF16(lb, v), slabs.b, ivs);
                   });
        gpu::BarrierOp::create(sb, loc);
        forEachCTile(sb, loc, threads, lanes, M, N, [&](OpBuilder &tb,
                                                        const CTile &t) {
          SmallVector<Value> acc = loadCFragment(tb, loc, out, maps[2], t, zero);
          // ldmatrix addresses: x4 for the 16 x 16 A tile (lanes 0-15 rows
          // at column 0, lanes 16-31 at column 8), x2 for the 8 x 16 B^T
          // tile (lanes 0-7 at column 0, 8-15 at column 8).
          Value c16 = cIndex(tb, loc, 16), c8 = cIndex(tb, loc, 8);
          Value aRow = arith::AddIOp::create(
              tb, loc, mulConst(tb, loc, t.tm, 16),
              arith::RemUIOp::create(tb, loc, lanes.lane, c16));
          Value aCol = mulConst(
              tb, loc, arith::DivUIOp::create(tb, loc, lanes.lane, c16), 8);
          Value bRow = arith::AddIOp::create(
              tb, loc, mulConst(tb, loc, t.tn, 8),
              arith::RemUIOp::create(tb, loc, lanes.lane, c8));
          Value bCol = mulConst(
              tb, loc,
              arith::RemUIOp::create(
                  tb, loc, arith::DivUIOp::create(tb, loc, lanes.lane, c8),
                  cIndex(tb, loc, 2)),
              8);
          // nvgpu.mma.sync has no bf16 lowering here; nvvm.mma.sync takes
          // the fragments as i32 registers of two bf16 each.
          auto packed = [&](Value fragment, int64_t rows) {
            SmallVector<Value> regs;
            for (int64_t i = 0; i < rows; ++i) {
              Value pair = vector::ExtractOp::create(tb, loc, fragment,
                                                     ArrayRef<int64_t>{i});
              Value word = vector::BitCastOp::create(
                  tb, loc, VectorType::get({1}, tb.getI32Type()), pair);
              regs.push_back(
                  vector::ExtractOp::create(tb, loc, word, ArrayRef<int64_t>{0}));
            }
            return regs;
          };
          Type fragTy = LLVM::LLVMStructType::getLiteral(
              tb.getContext(), SmallVector<Type>(4, f32));
          for (int64_t kk = 0; kk < kSlabK; kk += 16) {
            Value a = nvgpu::LdMatrixOp::create(
                tb, loc, VectorType::get({4, 2}, bf16), slabs.a,
                ValueRange{aRow, addConst(tb, loc, aCol, kk)},
                tb.getBoolAttr(false), tb.getI32IntegerAttr(4));
            Value bm = nvgpu::LdMatrixOp::create(
                tb, loc, VectorType::get({2, 2}, bf16), slabs.b,
                ValueRange{bRow, addConst(tb, loc, bCol, kk)},
                tb.getBoolAttr(false), tb.getI32IntegerAttr(2));
            Value d = NVVM::MmaOp::create(
                tb, loc, fragTy, packed(a, 4), packed(bm, 2), acc,
                ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
                std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                              NVVM::MMATypes::bf16},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                               NVVM::MMALayout::col});
            for (int e = 0; e < 4; ++e)
              acc[e] = LLVM::ExtractValueOp::create(tb, loc, d,
                                                    ArrayRef<int64_t>{e});
          }
          storeCFragment(tb, loc, acc, out, maps[2], t, zero);
        });
        // The next slab overwrites shared memory.
        gpu::BarrierOp::create(sb, loc);
        scf::YieldOp::create(sb, loc);
      });
}

LogicalResult distributeCopy(memref::CopyOp op, const Threads &threads) {
  auto type = cast<MemRefType>(op.getSource().getType());
  if (!type.hasStaticShape())
    return op.emitError("gdn-gpu-distribute needs statically shaped copies");
  OpBuilder b(op);
  SmallVector<Value> extents;
  for (int64_t s : type.getShape())
    extents.push_back(cIndex(b, op.getLoc(), s));
  threadLoop(b, op.getLoc(), threads, extents,
             [&](OpBuilder &lb, Location l, ValueRange ivs) {
               Value v = memref::LoadOp::create(lb, l, op.getSource(), ivs);
               memref::StoreOp::create(lb, l, v, op.getTarget(), ivs);
             });
  return success();
}

LogicalResult distributeForall(scf::ForallOp op, const Threads &threads) {
  if (!op.getOutputs().empty())
    return op.emitError("gdn-gpu-distribute expects scf.forall without "
                        "shared outputs after bufferization");
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> extents;
  for (auto [lb, ub, step] :
       llvm::zip(op.getMixedLowerBound(), op.getMixedUpperBound(),
                 op.getMixedStep())) {
    if (!isConstantIntValue(lb, 0) || !isConstantIntValue(step, 1))
      return op.emitError("gdn-gpu-distribute expects normalised scf.forall");
    extents.push_back(getValueOrCreateConstantIndexOp(b, loc, ub));
  }
  threadLoop(b, loc, threads, extents,
             [&](OpBuilder &lb, Location, ValueRange ivs) {
               IRMapping map;
               for (auto [arg, iv] : llvm::zip(op.getInductionVars(), ivs))
                 map.map(arg, iv);
               for (Operation &inner : op.getBody()->without_terminator())
                 lb.clone(inner, map);
             });
  return success();
}

struct DistributeToThreadsPass
    : public gdn::impl::GDNGPUDistributeBase<DistributeToThreadsPass> {
  using GDNGPUDistributeBase::GDNGPUDistributeBase;

  void runOnOperation() override {
    if (mma != "tf32" && mma != "bf16") {
      getOperation().emitError() << "mma must be tf32 or bf16, got '"
                                 << mma << "'";
      return signalPassFailure();
    }
    for (auto kernel : getOperation().getOps<gpu::GPUFuncOp>())
      if (kernel.isKernel() && failed(distribute(kernel)))
        return signalPassFailure();
  }

  LogicalResult distribute(gpu::GPUFuncOp kernel) {
    auto known = kernel.getKnownBlockSize();
    if (!known)
      return kernel.emitError("gdn-gpu-distribute needs known_block_size");
    OpBuilder b(kernel.getBody());
    b.setInsertionPointToStart(&kernel.getBody().front());
    Threads threads{gpu::ThreadIdOp::create(b, kernel.getLoc(),
                                            gpu::Dimension::x),
                    (*known)[0]};
    Value isLeader = arith::CmpIOp::create(b, kernel.getLoc(),
                                           arith::CmpIPredicate::eq,
                                           threads.tid, cIndex(b, kernel.getLoc(), 0));

    // Walk the uniform control flow; collect tile work and scalar writers.
    SmallVector<Operation *> work, scalarWriters;
    std::function<void(Block &)> visit = [&](Block &block) {
      for (Operation &op : block) {
        if (isDistributable(&op)) {
          work.push_back(&op);
          continue;
        }
        bool nestsWork = op.walk([](Operation *inner) {
                             return isDistributable(inner)
                                        ? WalkResult::interrupt()
                                        : WalkResult::advance();
                           }).wasInterrupted();
        if (nestsWork) {
          for (Region &region : op.getRegions())
            for (Block &inner : region)
              visit(inner);
          continue;
        }
        bool writes = op.walk([](memref::StoreOp) {
                          return WalkResult::interrupt();
                        }).wasInterrupted();
        if (writes)
          scalarWriters.push_back(&op);
      }
    };
    visit(kernel.getBody().front());

    // Shared-memory slabs, added once per kernel when the bf16 path needs
    // them.
    Slabs slabs;
    auto getSlabs = [&]() -> const Slabs & {
      if (!slabs.a) {
        auto workgroup = gpu::AddressSpaceAttr::get(
            kernel.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
        auto type = MemRefType::get({kSlabRows, kSlabStride},
                                    BFloat16Type::get(kernel.getContext()),
                                    MemRefLayoutAttrInterface(), workgroup);
        slabs.a = kernel.addWorkgroupAttribution(type, kernel.getLoc());
        slabs.b = kernel.addWorkgroupAttribution(type, kernel.getLoc());
      }
      return slabs;
    };
    for (Operation *op : work) {
      LogicalResult done = success();
      if (auto lop = dyn_cast<linalg::LinalgOp>(op)) {
        if (mma == "bf16" && bf16Compatible(lop))
          distributeMatmulBF16(lop, threads, getSlabs());
        else if (mmaCompatible(lop))
          distributeMatmul(lop, threads);
        else
          done = distributeLinalg(lop, threads);
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        done = distributeCopy(copy, threads);
      } else {
        done = distributeForall(cast<scf::ForallOp>(op), threads);
      }
      if (failed(done))
        return failure();
      OpBuilder after(op->getContext());
      after.setInsertionPointAfter(op);
      gpu::BarrierOp::create(after, op->getLoc());
      op->erase();
    }
    for (Operation *op : scalarWriters) {
      // The barrier goes after the writer before its stores are guarded:
      // a writer that is itself a store moves into the guard, and a barrier
      // there would be reached by thread 0 alone.
      OpBuilder after(op->getContext());
      after.setInsertionPointAfter(op);
      gpu::BarrierOp::create(after, op->getLoc());
      op->walk([&](memref::StoreOp store) {
        OpBuilder sb(store);
        auto guard = scf::IfOp::create(sb, store.getLoc(), isLeader,
                                       /*withElseRegion=*/false);
        store->moveBefore(guard.thenBlock()->getTerminator());
      });
    }
    return success();
  }
};

} // namespace
