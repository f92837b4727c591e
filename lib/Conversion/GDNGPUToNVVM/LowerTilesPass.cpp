//===- LowerTilesPass.cpp - gdn-gpu-lower-tiles ---------------------------===//
//
// Assembles the op families' patterns (one file each) into one dialect
// conversion per kernel: tiles with layouts become per-thread vectors and
// shared-memory buffers; scalar, memref and scf code stays for the upstream
// GPU-to-NVVM lowering.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"
#include "gdn/Dialect/AttrNames.h"

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPULOWERTILES
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
bool hasTileWithLayout(TypeRange types) {
  return llvm::any_of(types, [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.getEncoding() &&
           tensor.getEncoding().getDialect().getNamespace() == "gdn_gpu";
  });
}

struct LowerTilesPass
    : public gdn::impl::GDNGPULowerTilesBase<LowerTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<MmaPrecision> parsed = parseMmaPrecision(
        mmaPrecision, "gdn-gpu-lower-tiles", getOperation());
    if (failed(parsed))
      return signalPassFailure();
    MmaPrecision precision = *parsed;
    MLIRContext *ctx = &getContext();
    TileTypeConverter converter(ctx, precision);
    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, math::MathDialect,
                           vector::VectorDialect, memref::MemRefDialect,
                           gpu::GPUDialect, NVVM::NVVMDialect,
                           LLVM::LLVMDialect>();
    target.addIllegalDialect<GDNGPUDialect>();
    // Scalar gdn ops the upstream lowering does not know.
    target.addIllegalOp<gdn::PageLookupOp>();
    // A prefetch holds no tile, yet only this pass lowers it.
    target.addIllegalOp<gdn::TilePrefetchOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *op) {
      return !hasTileWithLayout(op->getOperandTypes()) &&
             !hasTileWithLayout(op->getResultTypes());
    });
    // Ops that work on whole tiles are legal only without layouts.
    target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect,
                                      tensor::TensorDialect, gdn::GDNDialect>(
        [](Operation *op) {
          return !hasTileWithLayout(op->getOperandTypes()) &&
                 !hasTileWithLayout(op->getResultTypes());
        });

    auto result = getOperation().walk([&](gpu::GPUFuncOp kernel) {
      SharedMemoryPlan plan(kernel, stagedElementBytes(precision));
      // Refused here, where the tiles that need the bytes are known, rather
      // than by the driver at launch ("invalid argument").
      if (plan.totalBytes() > SharedMemoryPlan::kMaxSharedBytes) {
        // At the kernel's location, without the op: its body is thousands of
        // lines.
        emitError(kernel.getLoc()) << "kernel " << kernel.getName() << " needs "
                           << plan.totalBytes()
                           << " bytes of shared memory a block; sm_90 allows "
                           << SharedMemoryPlan::kMaxSharedBytes
                           << " (227 KiB): its tiles do not fit on chip (a smaller "
                              "v-block, such as \"fused v-block=64\", holds "
                              "fewer state rows a block)";
        return WalkResult::interrupt();
      }
      RewritePatternSet patterns(ctx);
      populateElementwiseOpToNVVMPatterns(converter, patterns);
      populateLoadStoreOpToNVVMPatterns(converter, patterns);
      populateTilePrefetchToNVVMPatterns(converter, patterns);
      populateConvertLayoutOpToNVVMPatterns(converter, patterns, plan);
      populateRowOpToNVVMPatterns(converter, patterns);
      populateGateOpToNVVMPatterns(converter, patterns, plan);
      populateTriInverseOpToNVVMPatterns(converter, patterns, plan);
      populateMatmulOpToWGMMAPatterns(converter, patterns, plan);
      populateRingOpsToNVVMPatterns(converter, patterns, plan);
      scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                           target);
      if (failed(applyPartialConversion(kernel, target, std::move(patterns))))
        return WalkResult::interrupt();
      kernel->setAttr(gdn::attrs::kSharedBytesPerBlock,
                      IntegerAttr::get(IntegerType::get(ctx, 64), plan.totalBytes()));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
