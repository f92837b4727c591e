//===- GDNPlugin.cpp - the gdn dialect and passes as mlir-opt plugins -----===//

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

/// Dialect plugin entry point: `mlir-opt --load-dialect-plugin=libGDNPlugin.so`.
extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "GDN", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<gdn::GDNDialect>();
          }};
}

/// Pass plugin entry point: `mlir-opt --load-pass-plugin=libGDNPlugin.so`.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "GDNPasses", LLVM_VERSION_STRING,
          []() { gdn::registerGDNPassesAndPipelines(); }};
}
