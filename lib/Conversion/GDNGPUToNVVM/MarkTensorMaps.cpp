//===- MarkTensorMaps.cpp - tensor maps passed by value as grid constants -===//
//
// TMA reads a CUtensorMap through a generic address; a kernel parameter
// passed by value and marked a grid constant has one (`cvta.param`), which
// is how CUDA C++'s `const __grid_constant__ CUtensorMap` arrives. The
// GPU-to-NVVM conversion drops argument attributes, so they are put on the
// llvm.func here, from the kernel's `gdn.tensor_maps` (its last parameters,
// one per entry, after the scratch buffer: gdn-gpu-pipeline-loads).
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/AttrNames.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUMARKTENSORMAPS
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;

namespace {
/// sizeof(CUtensorMap) and its alignment (cuda.h: 64-byte aligned, 128 bytes).
constexpr int64_t kTensorMapBytes = 128, kTensorMapAlignment = 64;

struct MarkTensorMapsPass
    : public gdn::impl::GDNGPUMarkTensorMapsBase<MarkTensorMapsPass> {
  void runOnOperation() override {
    getOperation().walk([&](LLVM::LLVMFuncOp fn) {
      auto maps = fn->getAttrOfType<ArrayAttr>(gdn::attrs::kTensorMaps);
      if (!maps || maps.empty())
        return;
      unsigned params = fn.getNumArguments();
      if (maps.size() > params) {
        fn.emitOpError() << "has " << maps.size() << " entries in "
                         << gdn::attrs::kTensorMaps << " but only " << params
                         << " parameters";
        return signalPassFailure();
      }
      MLIRContext *ctx = &getContext();
      Builder b(ctx);
      auto blob = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8),
                                           kTensorMapBytes);
      for (unsigned i = params - maps.size(); i < params; ++i) {
        if (!isa<LLVM::LLVMPointerType>(fn.getArgument(i).getType())) {
          fn.emitOpError() << "parameter " << i
                           << " is a tensor map and should be a pointer";
          return signalPassFailure();
        }
        fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(blob));
        fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(kTensorMapAlignment));
        fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      b.getUnitAttr());
      }
    });
  }
};
} // namespace
