//===- RingOpsToNVVM.cpp - TMA load rings to mbarriers and bulk copies ----===//
//
// The ops gdn-gpu-pipeline-loads writes, at their shared-memory plan's
// offsets: a ring's barriers are initialised by thread 0 (arrival count 1:
// the thread that fills a slot arrives once, expecting its bytes), slots
// fill with `cp.async.bulk.tensor` boxes that complete on the slot's
// barrier, every thread waits on the barrier's phase parity, then reads its
// elements of the 128-byte-swizzled boxes with vector loads of up to 16
// bytes (a run of a thread's layout stays inside one 16-byte unit of the
// swizzle).
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The shared-window pointer (address space 3) `offset` bytes into the
/// kernel's dynamic shared memory, plus `dynamicBytes` (an index) if given.
Value sharedPointer(OpBuilder &b, Location loc, int64_t offset,
                    Value dynamicBytes) {
  Value at = sharedAddress(
      b, loc, sharedView(b, loc, offset, 1, IntegerType::get(b.getContext(), 8)));
  if (dynamicBytes)
    at = arith::AddIOp::create(
        b, loc, at,
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), dynamicBytes));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), at);
}

/// Slot `slot`'s barrier of ring `ring`.
Value barrierPointer(OpBuilder &b, Location loc, const SharedMemoryPlan &plan,
                     int64_t ring, Value slot) {
  return sharedPointer(
      b, loc, plan.barrierOffset(ring),
      arith::MulIOp::create(b, loc, slot, indexConstant(b, loc, 8)));
}

Value i32(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
}

template <typename Op>
struct RingPattern : OpConversionPattern<Op> {
  RingPattern(TileTypeConverter &converter, MLIRContext *ctx,
              SharedMemoryPlan &plan)
      : OpConversionPattern<Op>(converter, ctx), plan(plan) {}
  SharedMemoryPlan &plan;
};

struct LoadRingToNVVM : RingPattern<LoadRingOp> {
  using RingPattern::RingPattern;
  LogicalResult
  matchAndRewrite(LoadRingOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threadIdHere(b, loc),
                                        indexConstant(b, loc, 0));
    auto guard = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(guard.thenBlock());
      Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
      for (int64_t s = 0; s < op.getStages(); ++s)
        NVVM::MBarrierInitOp::create(
            b, loc,
            barrierPointer(b, loc, plan, op.getRing(), indexConstant(b, loc, s)),
            one, Value());
      // The barriers' initial state, visible to the TMA unit that completes
      // their transactions.
      NVVM::FenceMbarrierInitOp::create(b, loc);
    }
    emitBlockBarrier(b, loc, /*asyncProxy=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingExpectToNVVM : RingPattern<RingExpectOp> {
  using RingPattern::RingPattern;
  LogicalResult
  matchAndRewrite(RingExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    NVVM::MBarrierArriveExpectTxOp::create(
        b, loc, Type(),
        barrierPointer(b, loc, plan, op.getRing(), adaptor.getSlot()),
        arith::ConstantIntOp::create(b, loc, op.getBytes(), 32),
        NVVM::MemScopeKind::CTA, /*relaxed=*/false, Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaLoadToNVVM : RingPattern<TmaLoadOp> {
  using RingPattern::RingPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    int64_t ring = op.getRing();
    Value slotStart = arith::MulIOp::create(
        b, loc, adaptor.getSlot(), indexConstant(b, loc, plan.slotBytes(ring)));
    Value dest = sharedPointer(b, loc, plan.ringOffset(ring) + op.getOffset(),
                               slotStart);
    // A CTA's own shared memory is a shared::cluster address too.
    dest = LLVM::AddrSpaceCastOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), dest);
    SmallVector<Value> coords = llvm::map_to_vector(
        adaptor.getCoords(), [&](Value c) { return i32(b, loc, c); });
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dest, adaptor.getMap(), coords,
        barrierPointer(b, loc, plan, ring, adaptor.getSlot()), ValueRange{},
        Value(), Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
        NVVM::CTAGroupKindAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingWaitToNVVM : RingPattern<RingWaitOp> {
  using RingPattern::RingPattern;
  LogicalResult
  matchAndRewrite(RingWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    // A suspend-time hint of 10 ms, as CUTLASS's pipelines give.
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, barrierPointer(b, loc, plan, op.getRing(), adaptor.getSlot()),
        i32(b, loc, adaptor.getPhase()),
        arith::ConstantIntOp::create(b, loc, 10000000, 32));
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingReadToNVVM : RingPattern<RingReadOp> {
  using RingPattern::RingPattern;
  LogicalResult
  matchAndRewrite(RingReadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    int64_t ring = op.getRing();
    int64_t slotElements = plan.slotBytes(ring) / 2;
    // A view of the whole ring; the slot's tile starts `base` elements in.
    Value view = sharedView(b, loc, plan.ringOffset(ring),
                            plan.barrierOffset(ring) / 2 -
                                plan.ringOffset(ring) / 2,
                            element);
    Value base = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, adaptor.getSlot(),
                              indexConstant(b, loc, slotElements)),
        indexConstant(b, loc, op.getOffset() / 2));
    // Runs of at most 8 elements that start on a multiple of their length
    // stay in one 16-byte unit of the swizzle.
    int64_t run = vectorRunLength(type, 1, 8);
    Value zero = arith::ConstantOp::create(
        b, loc, VectorType::get({run}, element),
        DenseElementsAttr::get(VectorType::get({run}, element),
                               b.getFloatAttr(element, 0.0)));
    SmallVector<SmallVector<Value>> coords = emitThreadCoords(b, loc, type);
    SmallVector<Value> out;
    for (size_t reg = 0; reg < coords.size(); reg += run) {
      Value row = coords[reg][0], col = coords[reg][1];
      Value index = arith::AddIOp::create(
          b, loc, base,
          swizzledIndex(b, loc, row, col, type.getDimSize(0), 2));
      Value v = vector::LoadOp::create(b, loc, VectorType::get({run}, element),
                                       view, index, /*nontemporal=*/false,
                                       llvm::MaybeAlign(run * 2));
      if (Value rows = adaptor.getRows()) {
        Value keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           row, rows);
        v = arith::SelectOp::create(b, loc, keep, v, zero);
      }
      for (int64_t i = 0; i < run; ++i)
        out.push_back(vector::ExtractOp::create(b, loc, v, i));
    }
    rewriter.replaceOp(op, vector::FromElementsOp::create(
                               b, loc, getTypeConverter()->convertType(type), out));
    return success();
  }
};
} // namespace

void gdn_gpu::populateRingOpsToNVVMPatterns(TileTypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            SharedMemoryPlan &plan) {
  patterns.add<LoadRingToNVVM, RingExpectToNVVM, TmaLoadToNVVM, RingWaitToNVVM,
               RingReadToNVVM>(converter, patterns.getContext(), plan);
}
