//===- KernelSource.cpp - read, specialise and parse a kernel file --------===//

#include "KernelSource.h"

#include "gdn/InitAll/InitAll.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace gdn;

void gdn::registerCompilerDialects(mlir::DialectRegistry &registry) {
  mlir::gdn::registerGDNDialects(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
}

Status gdn::parseKernel(const CompileOptions &options,
                        mlir::MLIRContext &context, CapturedDiagnostics &diags,
                        std::string &specialised,
                        mlir::OwningOpRef<mlir::ModuleOp> &module) {
  std::string error;
  auto file = mlir::openInputFile(options.kernelPath, &error);
  if (!file)
    return Status::error("cannot read kernel file '" + options.kernelPath +
                         "': " + error);
  specialised = specializeKernelSource(file->getBuffer().str(), options.shape);
  diags.sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(specialised, options.kernelPath),
      llvm::SMLoc());
  module = mlir::parseSourceFile<mlir::ModuleOp>(diags.sourceMgr, &context);
  if (!module)
    return Status::error("kernel '" + options.kernelPath +
                         "' does not parse or verify:\n" + diags.text);
  return Status::success();
}
