//===- BulkStoreToNVVM.cpp - checkpoints through cp.async.bulk ------------===//
//
// A paged kernel checkpoints its 128 x 128 f32 state every page (every
// four chunks at page 256). Stored from registers, each checkpoint's 64 KB
// stayed in flight until the next proxy fence, a `MEMBAR` in SASS, waited
// for all of it, on the chunk loop's critical path. Here the registers go
// to a shared-memory buffer of the store's own (SharedMemoryPlan) and leave
// by `cp.async.bulk.global.shared::cta`, one row a thread: the copies run
// in the async proxy, which no `MEMBAR` waits for, while the next chunks
// compute. Rows are padded (bulkStoreRowStride) so that the accumulator
// layout's 8-byte stores hit every bank; the bulk copies read each row as
// one contiguous run, so the padding never reaches global memory.
//
// Off by default (gdn-gpu-lower-tiles bulk-checkpoints=false): on the H200
// the paged split-seq call took 1% longer with it, even at page 4096 where
// a head checkpoints four times (bench/RESULTS.md, fourteenth session). The
// replay's shared memory grows from 97 to 165 KiB and its registers by 4;
// which of those costs more than the fence waits saved was not measured.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

int64_t gdn_gpu::bulkStoreRowStride(RankedTensorType type) {
  return type.getDimSize(1) * type.getElementTypeBitWidth() / 8 + 32;
}

void gdn_gpu::emitBulkStoreDrain(gpu::GPUFuncOp kernel) {
  kernel.walk([](gpu::ReturnOp ret) {
    OpBuilder b(ret);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, ret.getLoc(), 0, b.getUnitAttr());
  });
}

namespace {
struct StateStoreByBulkCopies : OpConversionPattern<gdn::StateStoreOp> {
  StateStoreByBulkCopies(TileTypeConverter &converter, MLIRContext *ctx,
                         SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx, /*benefit=*/2), plan(plan) {}

  LogicalResult
  matchAndRewrite(gdn::StateStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<int64_t> offset = plan.bulkStoreOffset(op);
    if (!offset)
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    auto type = cast<RankedTensorType>(op.getValue().getType());
    int64_t rows = type.getDimSize(0);
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    int64_t rowBytes = type.getDimSize(1) * elementBytes;
    int64_t stride = bulkStoreRowStride(type) / elementBytes;
    Value buffer = sharedView(b, loc, *offset, rows * stride, type.getElementType());
    Value regs = adaptor.getValue();

    // The previous checkpoint's copies may still be reading the buffer:
    // each thread waits for its own, then the block meets.
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
    emitBlockBarrier(b, loc);
    int64_t run = vectorRunLength(type, 1, 16 / elementBytes);
    SmallVector<SmallVector<Value>> coords = emitThreadCoords(b, loc, type);
    for (size_t first = 0; first < coords.size(); first += run) {
      Value index = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, coords[first][0], c(stride)),
          coords[first][1]);
      if (run == 1) {
        memref::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, regs, first),
                                buffer, index);
        continue;
      }
      vector::StoreOp::create(b, loc, registerRun(b, loc, regs, first, run), buffer,
                              index, /*nontemporal=*/false,
                              llvm::MaybeAlign(run * elementBytes));
    }
    // The writes, visible to the async proxy and done on every thread.
    emitBlockBarrier(b, loc, /*asyncProxy=*/true);

    // Thread r < rows copies row r to pool[page, head, row + r, 0].
    Value tid = threadIdHere(b, loc);
    Value copies = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, c(rows));
    auto guard = scf::IfOp::create(b, loc, copies, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(guard.thenBlock());
    auto i64 = b.getI64Type();
    // Loop-invariant parts of the address pass through opaque moves, as
    // the prefetches' do (TilePrefetchToNVVM.cpp): LLVM would otherwise
    // hoist them out of the chunk loop and hold them across it.
    auto opaque = [&](Value index) -> Value {
      return arith::IndexCastUIOp::create(
          b, loc, b.getIndexType(),
          opaqueHere(b, loc, arith::IndexCastUIOp::create(b, loc, i64, index)));
    };
    Value pool = adaptor.getPool();
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, pool);
    Value row = adaptor.getRow() ? opaque(adaptor.getRow()) : c(0);
    SmallVector<Value> corner = {adaptor.getPage(), opaque(adaptor.getHead()),
                                 arith::AddIOp::create(b, loc, row, tid), c(0)};
    Value element = metadata.getOffset();
    for (auto [index, stride] : llvm::zip(corner, metadata.getStrides()))
      element = arith::AddIOp::create(b, loc, element,
                                      arith::MulIOp::create(b, loc, index, stride));
    Value base = opaque(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, pool));
    Value address = arith::AddIOp::create(
        b, loc, base, arith::MulIOp::create(b, loc, element, c(elementBytes)));
    Value generic = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()),
        arith::IndexCastUIOp::create(b, loc, i64, address).getResult());
    Value dst = LLVM::AddrSpaceCastOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), /*addressSpace=*/1),
        generic);
    Value srcAddress = arith::AddIOp::create(
        b, loc, sharedAddress(b, loc, buffer),
        arith::MulIOp::create(b, loc, arith::IndexCastUIOp::create(b, loc, i64, tid),
                              arith::ConstantIntOp::create(b, loc, stride * elementBytes, 64)));
    Value src = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), /*addressSpace=*/3),
        srcAddress);
    NVVM::CpAsyncBulkSharedCTAToGlobalOp::create(
        b, loc, dst, src, arith::ConstantIntOp::create(b, loc, rowBytes, 32),
        /*l2CacheHint=*/Value(), /*byteMask=*/Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    rewriter.eraseOp(op);
    return success();
  }

  SharedMemoryPlan &plan;
};
} // namespace

void gdn_gpu::populateBulkStoreToNVVMPatterns(TileTypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              SharedMemoryPlan &plan) {
  patterns.add<StateStoreByBulkCopies>(converter, patterns.getContext(), plan);
}
