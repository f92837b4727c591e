//===- InitAll.cpp - dialects every gdn tool registers --------------------===//

#include "gdn/InitAll/InitAll.h"
#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Dialect/GPU/GDNGPUDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::gdn::registerGDNDialects(DialectRegistry &registry) {
  // Every upstream dialect with its interfaces: kernels mix gdn with func,
  // scf, arith, math, tensor and memref, and the pipelines reach llvm / nvvm.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // gpu-module-to-binary translates the device module to LLVM IR.
  registerAllToLLVMIRTranslations(registry);
  registry.insert<GDNDialect, gdn_gpu::GDNGPUDialect>();
}
