//===- TilePrefetchToNVVM.cpp - tiles into the L2 cache ahead of loads ----===//
//
// gdn.tile_prefetch becomes `prefetch.L2` instructions spread over the
// block: the tile's cache lines are numbered row by row and thread t asks
// for lines t, t + threads, ... A row whose columns are the memref's
// contiguous dimension is one run of bytes, a line per 128 of them;
// otherwise (a vector of gates along tokens) every element is a line of
// its own. The hint needs no layout: a 64 x 128 bf16 tile is 128 lines,
// one instruction on each of 128 threads.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Dialect/ScalarFormulas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

constexpr int64_t kCacheLineBytes = 128;

PrefetchLines gdn_gpu::prefetchLines(MemRefType memref, ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> dims) {
  PrefetchLines plan;
  plan.elementBytes = llvm::divideCeil(memref.getElementTypeBitWidth(), 8);
  int64_t columns = shape.size() == 2 ? shape[1] : 1;
  bool contiguousRows = shape.size() == 2 && dims[1] == memref.getRank() - 1 &&
                        memref.getLayout().isIdentity();
  plan.columnsPerLine =
      contiguousRows ? std::max<int64_t>(1, kCacheLineBytes / plan.elementBytes)
                     : 1;
  plan.linesPerRow = llvm::divideCeil(columns, plan.columnsPerLine);
  plan.lines = shape[0] * plan.linesPerRow;
  return plan;
}

std::optional<int64_t> gdn_gpu::flatBlockThreads(gpu::GPUFuncOp kernel) {
  std::optional<ArrayRef<int32_t>> known =
      kernel ? kernel.getKnownBlockSize() : std::nullopt;
  if (!known || (*known)[1] != 1 || (*known)[2] != 1)
    return std::nullopt;
  return (*known)[0];
}

namespace {

struct TilePrefetchToNVVM : OpConversionPattern<gdn::TilePrefetchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::TilePrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<int64_t> threads =
        flatBlockThreads(op->getParentOfType<gpu::GPUFuncOp>());
    if (!threads)
      return op.emitOpError()
             << "needs a gpu.func with a known one-dimensional block size "
                "(known_block_size = array<i32: N, 1, 1>) to spread its "
                "lines over";

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto memref = cast<MemRefType>(op.getSource().getType());
    ArrayRef<int64_t> shape = op.getShape();
    ArrayRef<int64_t> dims = op.getDims();
    PrefetchLines plan = prefetchLines(memref, shape, dims);

    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value source = adaptor.getSource();
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, source);
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, source);
    Value tid = threadIdHere(b, loc);
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    auto level = NVVM::PrefetchCacheLevelAttr::get(
        b.getContext(), NVVM::PrefetchCacheLevel::L2);
    for (int64_t first = 0; first < plan.lines; first += *threads) {
      Value line = arith::AddIOp::create(b, loc, tid, c(first));
      Value row = arith::DivUIOp::create(b, loc, line, c(plan.linesPerRow));
      Value column = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, line, c(plan.linesPerRow)),
          c(plan.columnsPerLine));
      Value keep;
      auto both = [&](Value cond) {
        keep =
            keep ? arith::AndIOp::create(b, loc, keep, cond).getResult() : cond;
      };
      if (first + *threads > plan.lines)
        both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, line,
                                   c(plan.lines)));
      if (Value rows = adaptor.getRows())
        both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                   rows));
      // A line starting in padding is not asked for (one starting inside
      // the memref's extent is, whole).
      if (gdn::hasTilePadding(memref, shape, dims)) {
        SmallVector<Value> at(adaptor.getIndices());
        at[dims[0]] = arith::AddIOp::create(b, loc, at[dims[0]], row);
        if (dims.size() == 2)
          at[dims[1]] = arith::AddIOp::create(b, loc, at[dims[1]], column);
        both(gdn::emitInsidePadding(b, loc,
                                    gdn::tilePadding(memref, shape, dims), dims,
                                    at));
      }

      auto emit = [&](OpBuilder &at) {
        // Element offset of (row, column) from the memref's aligned pointer.
        // The corner and the pointer pass through opaque moves: otherwise
        // LLVM hoists their loop-invariant products (head x stride) out of
        // the chunk loop and holds them in registers across it.
        auto opaque = [&](Value index) -> Value {
          if (matchPattern(index, m_Constant()))
            return index;
          return arith::IndexCastUIOp::create(
              at, loc, at.getIndexType(),
              opaqueHere(at, loc,
                         arith::IndexCastUIOp::create(at, loc, at.getI64Type(),
                                                      index)));
        };
        Value offset = metadata.getOffset();
        for (auto [d, index] : llvm::enumerate(adaptor.getIndices())) {
          Value i = opaque(index);
          if (d == size_t(dims[0]))
            i = arith::AddIOp::create(at, loc, i, row);
          if (dims.size() == 2 && d == size_t(dims[1]))
            i = arith::AddIOp::create(at, loc, i, column);
          offset = arith::AddIOp::create(
              at, loc, offset,
              arith::MulIOp::create(at, loc, i, metadata.getStrides()[d]));
        }
        Value address = arith::AddIOp::create(
            at, loc, opaque(base),
            arith::MulIOp::create(at, loc, offset, c(plan.elementBytes)));
        Value pointer = LLVM::IntToPtrOp::create(
            at, loc, ptrType,
            arith::IndexCastUIOp::create(at, loc, at.getI64Type(), address)
                .getResult());
        NVVM::PrefetchOp::create(at, loc, level, /*evictPriority=*/nullptr,
                                 pointer, /*predicate=*/Value());
      };
      if (!keep) {
        emit(b);
        continue;
      }
      auto guard = scf::IfOp::create(b, loc, keep, /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(guard.thenBlock());
      emit(b);
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void gdn_gpu::populateTilePrefetchToNVVMPatterns(TileTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<TilePrefetchToNVVM>(converter, patterns.getContext());
}
