//===- gdn-opt.cpp - the gdn dialect's *-opt driver -----------------------===//
//
// MlirOptMain with the gdn dialect, the upstream dialects kernels use, every
// upstream pass, and the gdn passes and pipelines. `--schedule` picks the
// fusion schedule that gdn-schedule and the pipelines use when their own
// `schedule` option is empty.
//
//===----------------------------------------------------------------------===//

#include "gdn/InitAll/InitAll.h"
#include "gdn/Transforms/Passes.h"
#include "gdn/Schedule/Schedule.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::gdn::registerGDNPassesAndPipelines();
  mlir::DialectRegistry registry;
  mlir::gdn::registerGDNDialects(registry);

  static const std::string scheduleHelp =
      "Fusion schedule of gdn-schedule and the gdn pipelines: " +
      mlir::gdn::scheduleHelp();
  static llvm::cl::opt<std::string> schedule(
      "schedule", llvm::cl::desc(scheduleHelp),
      llvm::cl::value_desc("NAME|FILE"),
      llvm::cl::cb<void, std::string>(
          [](std::string spec) { mlir::gdn::setDefaultSchedule(spec); }));

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "gdn-opt: the gdn tile compiler's optimizer driver\n",
      registry));
}
