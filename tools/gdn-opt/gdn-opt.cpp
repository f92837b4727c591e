//===- gdn-opt.cpp - the gdn dialect's *-opt driver -----------------------===//
//
// MlirOptMain with the gdn dialect, the upstream dialects kernels use, every
// upstream pass, and the gdn passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "gdn/InitAll/InitAll.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::gdn::registerGDNPassesAndPipelines();
  mlir::DialectRegistry registry;
  mlir::gdn::registerGDNDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "gdn-opt: the gdn tile compiler's optimizer driver\n",
      registry));
}
