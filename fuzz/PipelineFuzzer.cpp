//===- PipelineFuzzer.cpp - mutated kernels through the project's passes --===//
//
// Inputs that parse and verify, made only of the dialects kernels use, go
// through gdn-cpu-pipeline. A pass may reject them with a diagnostic; it
// must not crash.
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

#include "gdn/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

namespace {
bool onlyKernelDialects(mlir::ModuleOp module) {
  static const llvm::StringRef allowed[] = {"builtin", "gdn",  "func", "arith",
                                            "scf",     "math", "tensor",
                                            "memref"};
  bool ok = true;
  module.walk([&](mlir::Operation *op) {
    llvm::StringRef ns = op->getName().getDialectNamespace();
    if (llvm::find(allowed, ns) == std::end(allowed))
      ok = false;
  });
  return ok;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto module = gdn::fuzz::parse(data, size);
  if (!module || !onlyKernelDialects(*module))
    return 0;
  mlir::PassManager pm(&gdn::fuzz::context());
  mlir::gdn::buildCPUPipeline(pm, {});
  (void)pm.run(*module);
  return 0;
}
