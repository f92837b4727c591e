//===- MatmulOpToWGMMA.cpp - gdn.matmul on Hopper's warpgroup MMA ---------===//
//
// NVIDIA-specific. Both operands are staged in 128-byte-swizzled shared
// memory (ConvertLayoutOpToNVVM.cpp); the result is the wgmma accumulator,
// the tile's registers in the #gdn_gpu.wgmma layout. A 64-row slab of the
// result is one chain of wgmma.mma_async over K (k16 for bf16 / f16 operands, k8
// for tf32); a 128-row result is two chains. The matrix descriptors are
// built by hand, as Triton does: start address >> 4, leading byte offset,
// stride byte offset 1024 (8 rows of 128 bytes), swizzle mode 1 (128
// bytes).
// - K-major operands (rows of A, columns of B): a k step moves the start
//   address along the 128-byte row; the next 128 bytes of K are the next
//   slab; the leading byte offset is unused (16).
// - MN-major operands (transposed 16-bit ones, read with the transpose
//   bits): rows run along M or N, a k step moves 16 rows down, and the
//   leading byte offset is the step from one 64-element slab of M or N to
//   the next (K rows of 128 bytes).
// With two warpgroups, each computes half of N: its B descriptor starts at
// its half of B (staged rows, or elements along the rows).
//
// With an acc operand the accumulator starts from its registers.
//
// The accumulator's registers pass through an empty side-effecting asm
// before wgmma.fence and after wgmma.wait_group, as CUTLASS's
// warpgroup_fence_operand does: wgmma's results are plain SSA values to
// LLVM, which would otherwise move their first uses (a negation, say)
// above the wait, or the code making the starting values below the fence.
// ptxas then serialises every wgmma of the kernel (C7514) or adds arrives
// (C7519).
//
// The mask and the exp(gamma_i - gamma_j) decay are applied to the
// accumulator registers: a thread holds gamma of its rows (the row slice),
// and reads gamma of its columns from the scratch area.
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

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
constexpr int64_t kRowsPerInstruction = 64;

/// The fixed fields of a descriptor: leading byte offset `lbo` (>> 4, bits
/// 16-29), stride byte offset 1024 (8 rows of 128 bytes; >> 4 = 64, bits
/// 32-45), 128-byte swizzle (mode 1, bits 62-63). K-major operands ignore
/// the leading offset (16 by convention); an MN-major one steps by it from
/// one 64-element slab of M or N to the next.
uint64_t descriptorBits(int64_t lbo) {
  return (uint64_t(lbo >> 4) << 16) | (64ull << 32) | (1ull << 62);
}

/// Byte offset, in a staged operand, of the instruction reading `mn0`
/// onwards along M or N and `k0` onwards along K; `mnTotal` / `kTotal` are
/// the buffer's extents. K-major: slabs of 128 bytes of K, rows along MN.
/// MN-major: slabs of 128 bytes of MN, rows along K.
int64_t operandOffset(bool mnMajor, int64_t mn0, int64_t k0, int64_t mnTotal,
                      int64_t kTotal, int64_t elementBytes) {
  if (mnMajor) {
    int64_t mb = mn0 * elementBytes;
    return mb / 128 * kTotal * 128 + k0 * 128 + mb % 128;
  }
  int64_t kb = k0 * elementBytes;
  return kb / 128 * mnTotal * 128 + mn0 * 128 + kb % 128;
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

/// `acc` (a struct of f32 registers) through an empty asm with side effects
/// that reads and rewrites each register in place: uses of the result stay
/// below it, definitions of `acc` above it (the wgmma fence and wait are
/// side effects too, so it keeps its place beside them).
Value fenceRegisters(OpBuilder &b, Location loc, Value acc) {
  auto type = cast<LLVM::LLVMStructType>(acc.getType());
  int64_t n = type.getBody().size();
  SmallVector<Value> regs;
  std::string constraints;
  for (int64_t i = 0; i < n; ++i) {
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
    constraints += "=f,";
  }
  for (int64_t i = 0; i < n; ++i)
    constraints += std::to_string(i) + (i + 1 < n ? "," : "");
  return LLVM::InlineAsmOp::create(
             b, loc, type, regs, /*asm_string=*/"", constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
             /*operand_attrs=*/nullptr)
      .getRes();
}

Value descriptor(OpBuilder &b, Location loc, Value base, int64_t byteOffset,
                 uint64_t bits) {
  Value addr = arith::AddIOp::create(b, loc, base, i64Const(b, loc, byteOffset));
  Value field = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, addr, i64Const(b, loc, 0x3FFFF)),
      i64Const(b, loc, 4));
  return arith::OrIOp::create(b, loc, field,
                              i64Const(b, loc, static_cast<int64_t>(bits)));
}

struct MatmulOnWarpgroupMma : OpConversionPattern<gdn::MatmulOp> {
  MatmulOnWarpgroupMma(TileTypeConverter &converter, MLIRContext *ctx,
                       SharedMemoryPlan &plan)
      : OpConversionPattern(converter, ctx), plan(plan) {}

  LogicalResult
  matchAndRewrite(gdn::MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = op.getType();
    auto mma = dyn_cast_or_null<WarpgroupMmaAttr>(resultType.getEncoding());
    if (!mma)
      return failure();
    int64_t m = resultType.getDimSize(0), n = resultType.getDimSize(1);
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    int64_t k = lhsType.getDimSize(op.getTransposeA() ? 0 : 1);
    // Warpgroup g computes columns [g instrN, (g + 1) instrN) of every slab.
    int64_t groups = mma.getWarpsPerCTA()[1], instrN = mma.getInstrN();
    if (mma.getWarpsPerCTA()[0] != kWarpsPerWarpgroup || instrN * groups != n ||
        m % kRowsPerInstruction != 0)
      return rewriter.notifyMatchFailure(
          op, "warpgroups split N (instrN x warpgroups = N) over 64-row slabs");
    auto staged = cast<MemRefType>(adaptor.getLhs().getType()).getElementType();
    bool half = staged.isBF16() || staged.isF16();
    int64_t elementBytes = half ? 2 : 4, kStep = half ? 16 : 8;

    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Type f32 = rewriter.getF32Type();
    auto accType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(instrN / 2, f32));
    auto mnMajor = [&](Value operand) {
      auto type = cast<RankedTensorType>(operand.getType());
      return isStagedMNMajor(type, cast<DotOperandAttr>(type.getEncoding()),
                             elementBytes);
    };
    bool aMN = mnMajor(op.getLhs()), bMN = mnMajor(op.getRhs());
    uint64_t aBits = descriptorBits(aMN ? k * 128 : 16);
    uint64_t bBits = descriptorBits(bMN ? k * 128 : 16);
    // Descriptors are built at the matmul, not hoisted (opaqueHere).
    Value aBase = opaqueHere(rewriter, loc, sharedAddress(rewriter, loc, adaptor.getLhs()));
    Value bBase = opaqueHere(rewriter, loc, sharedAddress(rewriter, loc, adaptor.getRhs()));
    if (groups > 1) {
      // This warpgroup's columns of B start instrN along N: rows of a
      // K-major buffer, elements of an MN-major one. Warpgroups 0 and 1.
      int64_t step = operandOffset(bMN, instrN, 0, n, k, elementBytes);
      Value group = arith::DivUIOp::create(
          rewriter, loc, threadIdHere(rewriter, loc),
          arith::ConstantIndexOp::create(rewriter, loc, kWarpsPerWarpgroup * kWarpSize));
      Value offset = arith::MulIOp::create(
          rewriter, loc,
          arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI64Type(),
                                       group),
          i64Const(rewriter, loc, step));
      bBase = arith::AddIOp::create(rewriter, loc, bBase, offset);
    }
    auto wgmmaType = NVVM::WGMMATypesAttr::get(
        ctx, staged.isBF16()  ? NVVM::WGMMATypes::bf16
             : staged.isF16() ? NVVM::WGMMATypes::f16
                              : NVVM::WGMMATypes::tf32);

    // Each chain starts from zero, or from the acc operand's registers of
    // its slab (the same wgmma layout as the result), made before the fence.
    SmallVector<Value> accs;
    for (int64_t rm = 0; rm < m / kRowsPerInstruction; ++rm) {
      Value acc = LLVM::ZeroOp::create(rewriter, loc, accType);
      if (Value init = adaptor.getAcc())
        for (int64_t i = 0; i < instrN / 2; ++i)
          acc = LLVM::InsertValueOp::create(
              rewriter, loc, acc,
              vector::ExtractOp::create(rewriter, loc, init, rm * instrN / 2 + i), i);
      accs.push_back(fenceRegisters(rewriter, loc, acc));
    }
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t rm = 0; rm < m / kRowsPerInstruction; ++rm) {
      Value &acc = accs[rm];
      for (int64_t k0 = 0; k0 < k; k0 += kStep) {
        Value descA = descriptor(rewriter, loc, aBase,
                                 operandOffset(aMN, rm * kRowsPerInstruction,
                                               k0, m, k, elementBytes),
                                 aBits);
        Value descB =
            descriptor(rewriter, loc, bBase,
                       operandOffset(bMN, 0, k0, n, k, elementBytes), bBits);
        acc = NVVM::WgmmaMmaAsyncOp::create(
            rewriter, loc, accType, acc, descA, descB,
            NVVM::MMAShapeAttr::get(ctx, kRowsPerInstruction, instrN, kStep),
            wgmmaType, wgmmaType,
            NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            // K-major A is "row", K-major B "col"; the other is the
            // transpose bit (MN-major).
            NVVM::MMALayoutAttr::get(ctx, aMN ? NVVM::MMALayout::col
                                              : NVVM::MMALayout::row),
            NVVM::MMALayoutAttr::get(ctx, bMN ? NVVM::MMALayout::row
                                              : NVVM::MMALayout::col),
            /*satfinite=*/nullptr);
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    // Wait for all groups before reading the accumulator (a later wait makes
    // ptxas serialise the MMAs: C7514).
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);

    SmallVector<Value> regs;
    for (Value &acc : accs)
      acc = fenceRegisters(rewriter, loc, acc);
    for (Value acc : accs)
      for (int64_t i = 0; i < instrN / 2; ++i)
        regs.push_back(LLVM::ExtractValueOp::create(rewriter, loc, acc, i));
    if (op.getMask() != gdn::MaskKind::none)
      applyMaskAndDecay(op, adaptor, regs, rewriter);
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(resultType), regs);
    return success();
  }

  void applyMaskAndDecay(gdn::MatmulOp op, OpAdaptor adaptor,
                         SmallVectorImpl<Value> &regs,
                         ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto resultType = op.getType();
    auto coords = emitThreadCoords(rewriter, loc, resultType);
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    bool strict = op.getMask() == gdn::MaskKind::strict;

    SmallVector<Value> rowGamma, colGamma;
    if (Value decay = adaptor.getDecay()) {
      // gamma of the rows: the thread's own slice registers.
      SmallVector<int64_t> rowOf = sliceRegisterOf(resultType, 1);
      for (int64_t r : rowOf)
        rowGamma.push_back(vector::ExtractOp::create(rewriter, loc, decay, r));
      // gamma of the columns: through the scratch area, written by the
      // first lane of each quad (the four lanes of a quad hold the same rows).
      auto decayType = cast<RankedTensorType>(op.getDecay().getType());
      int64_t len = decayType.getDimSize(0);
      Value scratch = sharedView(rewriter, loc, plan.scratchOffset(), len,
                                 rewriter.getF32Type());
      emitBlockBarrier(rewriter, loc);
      Value tid = threadIdHere(rewriter, loc);
      Value quadLead = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(rewriter, loc, tid,
                                 arith::ConstantIndexOp::create(rewriter, loc, 4)),
          arith::ConstantIndexOp::create(rewriter, loc, 0));
      auto guard = scf::IfOp::create(rewriter, loc, quadLead, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(guard.thenBlock());
        for (auto [reg, c] :
             llvm::enumerate(emitThreadCoords(rewriter, loc, decayType))) {
          Value v = vector::ExtractOp::create(rewriter, loc, decay, reg);
          memref::StoreOp::create(rewriter, loc, v, scratch, c[0]);
        }
      }
      emitBlockBarrier(rewriter, loc);
      for (const auto &c : coords)
        colGamma.push_back(memref::LoadOp::create(rewriter, loc, scratch, c[1]));
    }
    for (auto [i, c] : llvm::enumerate(coords)) {
      Value keep = arith::CmpIOp::create(
          rewriter, loc, strict ? arith::CmpIPredicate::ult : arith::CmpIPredicate::ule,
          c[1], c[0]);
      Value v = regs[i];
      if (!rowGamma.empty()) {
        Value diff = arith::SubFOp::create(rewriter, loc, rowGamma[i], colGamma[i]);
        v = arith::MulFOp::create(rewriter, loc, v, math::ExpOp::create(rewriter, loc, diff));
      }
      regs[i] = arith::SelectOp::create(rewriter, loc, keep, v, zero);
    }
  }

  SharedMemoryPlan &plan;
};
} // namespace

void gdn_gpu::populateMatmulOpToWGMMAPatterns(TileTypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              SharedMemoryPlan &plan) {
  patterns.add<MatmulOnWarpgroupMma>(converter, patterns.getContext(), plan);
}
