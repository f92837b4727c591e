//===- DumpPTX.cpp - gdn-gpu-dump-ptx: a gpu.binary's PTX as text ---------===//
//
// gpu-module-to-binary keeps the PTX as an attribute string; gdn-opt users
// want the text ptxas reads (and that gdn-run --emit ptx prints).
//
//===----------------------------------------------------------------------===//

#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUDUMPPTX
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;

namespace {
struct DumpPTXPass : public gdn::impl::GDNGPUDumpPTXBase<DumpPTXPass> {
  using GDNGPUDumpPTXBase::GDNGPUDumpPTXBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
    if (binaries.size() != 1) {
      module.emitError() << "gdn-gpu-dump-ptx expects one gpu.binary, found "
                         << binaries.size()
                         << "; run it after gdn-gpu-pipeline (or "
                            "gdn-gpu-tiles-to-ptx)";
      return signalPassFailure();
    }
    ArrayAttr objects = binaries[0].getObjects();
    auto object = objects.size() == 1
                      ? dyn_cast<gpu::ObjectAttr>(objects[0])
                      : gpu::ObjectAttr();
    if (!object || object.getFormat() != gpu::CompilationTarget::Assembly) {
      binaries[0].emitError()
          << "gdn-gpu-dump-ptx expects one object in assembly (PTX) form, "
             "as gdn-gpu-pipeline writes it";
      return signalPassFailure();
    }
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(file, &error);
    if (!out) {
      module.emitError() << "gdn-gpu-dump-ptx: cannot write '" << file
                         << "': " << error;
      return signalPassFailure();
    }
    out->os() << object.getObject().getValue();
    out->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
