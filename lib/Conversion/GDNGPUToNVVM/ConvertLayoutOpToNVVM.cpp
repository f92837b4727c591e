//===- ConvertLayoutOpToNVVM.cpp - moving tiles between layouts -----------===//
//
// Two moves, both through shared memory:
// - between distributed layouts: every thread writes its registers to the
//   scratch area (row-major), the block meets, every thread reads the
//   elements its new layout gives it;
// - into a tensor-core operand: every thread writes its registers, in the
//   staged element type, to the operand's own 128-byte-swizzled buffer,
//   then the writes are fenced for the async proxy and the block meets.
//   The buffer is K-major, or MN-major for a transposed 16-bit operand
//   (isStagedMNMajor): then the tile is stored as it is held, a vector per
//   run of registers, where a K-major buffer would need it transposed one
//   element at a time (tf32, which wgmma cannot read transposed).
//   Accumulator tiles staged as 16-bit elements and not transposed on the
//   way leave with stmatrix, 8 registers (four 8 x 8 matrices) a store,
//   where plain stores would write 4 bytes at a time.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
/// `v` (a scalar or a vector of floats) converted to `type`.
Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (getElementTypeOrSelf(type).getIntOrFloatBitWidth() <
      getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth())
    return arith::TruncFOp::create(b, loc, type, v);
  return arith::ExtFOp::create(b, loc, type, v);
}

// stmatrix.x4 (m8n8, b16) stores four 8 x 8 matrices for a warp: lane l
// holds in source register i the pair (row l / 4, columns 2 (l % 4) and
// + 1) of matrix i, and lane 8 i + r gives the address of matrix i's row r
// (8 elements, 16 contiguous bytes). Within a 16 x 16 block, matrix i has
// its corner at (8 (i % 2), 8 (i / 2)): the wgmma accumulator's order of
// registers.

/// Where lane l's pair of matrix i sits in its 16 x 16 block.
std::array<int64_t, 2> stMatrixPairOf(int64_t lane, int64_t matrix) {
  return {lane / 4 + 8 * (matrix % 2), 2 * (lane % 4) + 8 * (matrix / 2)};
}

/// Whether every thread's registers of `type`, 8 at a time, are the four
/// matrices of a 16 x 16 block whose corner the whole warp agrees on, with
/// 16-byte rows (corner column a multiple of 8): checked on the layout's
/// own element map for every thread, so any layout and shape that passes
/// can leave by stmatrix.
bool registersAreStMatrixGroups(RankedTensorType type) {
  auto layout = dyn_cast<DistributedLayoutAttr>(type.getEncoding());
  if (!layout || type.getRank() != 2)
    return false;
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<std::array<int64_t, 2>> warpCorners;
  for (unsigned t = 0; t < layout.getNumThreads(); ++t) {
    SmallVector<SmallVector<int64_t>> coords = layout.getElementCoords(shape, t);
    if (coords.empty() || coords.size() % 8 != 0)
      return false;
    int64_t lane = t % kWarpSize;
    if (lane == 0)
      warpCorners.clear();
    for (size_t q = 0; q < coords.size() / 8; ++q) {
      std::array<int64_t, 2> pair = stMatrixPairOf(lane, 0);
      std::array<int64_t, 2> corner = {coords[8 * q][0] - pair[0],
                                       coords[8 * q][1] - pair[1]};
      if (corner[1] % 8 != 0)
        return false;
      if (lane == 0)
        warpCorners.push_back(corner);
      else if (warpCorners[q] != corner)
        return false;
      for (int64_t i = 0; i < 8; ++i) {
        std::array<int64_t, 2> at = stMatrixPairOf(lane, i / 2);
        if (coords[8 * q + i][0] != corner[0] + at[0] ||
            coords[8 * q + i][1] != corner[1] + at[1] + i % 2)
          return false;
      }
    }
  }
  return true;
}

struct ConvertLayoutThroughShared : OpConversionPattern<ConvertLayoutOp> {
  ConvertLayoutThroughShared(TileTypeConverter &converter, MLIRContext *ctx,
                             SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx), plan(plan) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = op.getSource().getType();
    auto dst = op.getType();
    if (!getDistributedLayout(src))
      return rewriter.notifyMatchFailure(op, "source has no distributed layout");
    if (auto operand = dyn_cast_or_null<DotOperandAttr>(dst.getEncoding()))
      return stageOperand(op, operand, adaptor.getSource(), rewriter);
    if (getDistributedLayout(dst))
      return redistribute(op, adaptor.getSource(), rewriter);
    return rewriter.notifyMatchFailure(op, "unsupported layout pair");
  }

  LogicalResult redistribute(ConvertLayoutOp op, Value regs,
                             ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto src = op.getSource().getType();
    auto dst = op.getType();
    Type elt = src.getElementType();
    int64_t bytes = src.getNumElements() * elt.getIntOrFloatBitWidth() / 8;
    if (bytes > plan.scratchBytes())
      return rewriter.notifyMatchFailure(op, "scratch area too small");
    Value scratch = writeToScratch(rewriter, loc, plan, regs, src);
    // Registers consecutive along the last dimension: one vector load.
    int64_t eltBits = elt.getIntOrFloatBitWidth();
    int64_t eltBytes = std::max<int64_t>(1, eltBits / 8);
    int64_t run =
        eltBits % 8 ? 1 : vectorRunLength(dst, dst.getRank() - 1, 16 / eltBytes);
    auto coords = emitThreadCoords(rewriter, loc, dst);
    SmallVector<Value> out;
    for (size_t reg = 0; reg < coords.size(); reg += run) {
      Value index = rowMajorIndex(rewriter, loc, coords[reg], dst.getShape());
      if (run == 1) {
        out.push_back(memref::LoadOp::create(rewriter, loc, scratch, index));
        continue;
      }
      Value vec = vector::LoadOp::create(
          rewriter, loc, VectorType::get({run}, elt), scratch, index,
          /*nontemporal=*/false, llvm::MaybeAlign(run * eltBytes));
      for (int64_t j = 0; j < run; ++j)
        out.push_back(vector::ExtractOp::create(rewriter, loc, vec, j));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(dst), out);
    return success();
  }

  LogicalResult stageOperand(ConvertLayoutOp op, DotOperandAttr operand,
                             Value regs,
                             ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto src = op.getSource().getType();
    auto bufferType = cast<MemRefType>(getTypeConverter()->convertType(op.getType()));
    Type staged = bufferType.getElementType();
    int64_t elementBytes = staged.getIntOrFloatBitWidth() / 8;
    // K-major: staged rows are rows of A / columns of B, K elements each,
    // so a transposed tile is transposed on the way. MN-major: the tile's
    // own rows (K of them) are stored as they are. Either way the buffer's
    // rows are the tile's rows unless `transposeOnTheWay`.
    bool transposeOnTheWay = stagedTransposed(src, operand, elementBytes);
    int64_t rows = src.getDimSize(transposeOnTheWay ? 1 : 0);
    int64_t k = src.getDimSize(transposeOnTheWay ? 0 : 1);
    if (elementBytes == 0 || operand.getShared().getSwizzleBytes() != 128 ||
        (k * elementBytes) % 128 != 0)
      return rewriter.notifyMatchFailure(
          op, "staged operands are 128-byte swizzled with whole 128-byte rows");
    Value buffer = sharedView(rewriter, loc, plan.offsetOf(op), src.getNumElements(),
                              staged);
    // An earlier staging wrote these bytes, and the plan keeps them.
    if (plan.stagedBefore(op)) {
      rewriter.replaceOp(op, buffer);
      return success();
    }
    // The buffer's bytes may still be read by an earlier operand's matmul.
    emitBlockBarrier(rewriter, loc);
    if (elementBytes == 2 && !transposeOnTheWay && registersAreStMatrixGroups(src))
      storeWithStMatrix(rewriter, loc, regs, src, buffer, staged, rows);
    else
      storeElements(rewriter, loc, regs, src, buffer, staged, rows,
                    transposeOnTheWay);
    emitBlockBarrier(rewriter, loc, /*asyncProxy=*/true);
    rewriter.replaceOp(op, buffer);
    return success();
  }

  /// Plain stores into the swizzled buffer: each run of registers along a
  /// buffer row as one vector, else element by element.
  void storeElements(OpBuilder &rewriter, Location loc, Value regs,
                     RankedTensorType src, Value buffer, Type staged,
                     int64_t rows, bool transposeOnTheWay) const {
    int64_t elementBytes = staged.getIntOrFloatBitWidth() / 8;
    // Registers consecutive along a buffer row (K, or M / N when MN-major)
    // land in one 16-byte unit of the swizzle (runs are aligned to their
    // length): one vector store each.
    int64_t run =
        vectorRunLength(src, transposeOnTheWay ? 0 : 1, 16 / elementBytes);
    auto coords = emitThreadCoords(rewriter, loc, src);
    for (size_t reg = 0; reg < coords.size(); reg += run) {
      Value row = transposeOnTheWay ? coords[reg][1] : coords[reg][0];
      Value kk = transposeOnTheWay ? coords[reg][0] : coords[reg][1];
      Value index = swizzledIndex(rewriter, loc, row, kk, rows, elementBytes);
      if (run == 1) {
        Value v = castTo(rewriter, loc,
                         vector::ExtractOp::create(rewriter, loc, regs, reg), staged);
        memref::StoreOp::create(rewriter, loc, v, buffer, index);
        continue;
      }
      Value v = castTo(rewriter, loc, registerRun(rewriter, loc, regs, reg, run),
                       VectorType::get({run}, staged));
      vector::StoreOp::create(rewriter, loc, v, buffer, index,
                              /*nontemporal=*/false,
                              llvm::MaybeAlign(run * elementBytes));
    }
  }

  /// One stmatrix.x4 per 8 registers (registersAreStMatrixGroups): the tile
  /// as held, buffer rows = tile rows. A group's block has its corner at the
  /// lane's first register's coordinates less stMatrixPairOf(l, 0).
  void storeWithStMatrix(OpBuilder &b, Location loc, Value regs,
                         RankedTensorType src, Value buffer, Type staged,
                         int64_t rows) const {
    MLIRContext *ctx = b.getContext();
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    auto coords = emitThreadCoords(b, loc, src);
    Value lane = arith::RemUIOp::create(b, loc, threadIdHere(b, loc), c(kWarpSize));
    // Lane 8 i + r: row r of matrix i, at (r + 8 (i % 2), 8 (i / 2)).
    Value lane8 = arith::RemUIOp::create(b, loc, lane, c(8));
    Value laneRow = arith::AddIOp::create(
        b, loc, lane8,
        arith::MulIOp::create(
            b, loc,
            arith::RemUIOp::create(b, loc, arith::DivUIOp::create(b, loc, lane, c(8)), c(2)),
            c(8)));
    Value laneCol =
        arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, lane, c(16)), c(8));
    Value pairRow = arith::DivUIOp::create(b, loc, lane, c(4));
    Value pairCol = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, lane, c(4)), c(2));
    Value base = sharedAddress(b, loc, buffer);
    auto ptrType = LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/3);
    auto pairType = VectorType::get({2}, staged);
    auto wordType = VectorType::get({1}, b.getI32Type());
    for (size_t first = 0; first < coords.size(); first += 8) {
      Value row = arith::AddIOp::create(
          b, loc, arith::SubIOp::create(b, loc, coords[first][0], pairRow), laneRow);
      Value col = arith::AddIOp::create(
          b, loc, arith::SubIOp::create(b, loc, coords[first][1], pairCol), laneCol);
      Value index = swizzledIndex(b, loc, row, col, rows, /*elementBytes=*/2);
      Value byte = arith::MulIOp::create(
          b, loc, arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index),
          arith::ConstantIntOp::create(b, loc, 2, 64));
      Value address = arith::AddIOp::create(b, loc, base, byte);
      Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, address);
      SmallVector<Value> words;
      for (int64_t i = 0; i < 4; ++i) {
        Value pair = castTo(b, loc, registerRun(b, loc, regs, first + 2 * i, 2), pairType);
        words.push_back(vector::ExtractOp::create(
            b, loc, vector::BitCastOp::create(b, loc, wordType, pair), 0));
      }
      NVVM::StMatrixOp::create(
          b, loc, ptr, words, NVVM::MMALayout::row,
          NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8), NVVM::LdStMatrixEltType::B16);
    }
  }

  SharedMemoryPlan &plan;
};

/// One element of a tile, for every thread: through the scratch area.
struct ExtractThroughShared : OpConversionPattern<tensor::ExtractOp> {
  ExtractThroughShared(TileTypeConverter &converter, MLIRContext *ctx,
                       SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx), plan(plan) {}

  LogicalResult
  matchAndRewrite(tensor::ExtractOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getTensor().getType());
    if (!getDistributedLayout(type))
      return failure();
    Location loc = op.getLoc();
    Value scratch = writeToScratch(rewriter, loc, plan, adaptor.getTensor(), type);
    SmallVector<Value> idx(adaptor.getIndices().begin(), adaptor.getIndices().end());
    rewriter.replaceOpWithNewOp<memref::LoadOp>(
        op, scratch, rowMajorIndex(rewriter, loc, idx, type.getShape()));
    return success();
  }

  SharedMemoryPlan &plan;
};
} // namespace

void gdn_gpu::populateConvertLayoutOpToNVVMPatterns(TileTypeConverter &converter,
                                                    RewritePatternSet &patterns,
                                                    SharedMemoryPlan &plan) {
  patterns.add<ConvertLayoutThroughShared, ExtractThroughShared>(
      converter, patterns.getContext(), plan);
}
