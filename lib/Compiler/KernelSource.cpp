//===- KernelSource.cpp - read, specialise and parse a kernel file --------===//

#include "KernelSource.h"

#include "gdn/Compiler/SourceNesting.h"

#include "gdn/InitAll/InitAll.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
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

Status gdn::resolveKernelShape(const CompileOptions &options,
                               KernelShape &shape) {
  shape = options.shape;
  const mlir::gdn::ScheduleOptions &schedule = options.schedule;
  if (schedule.vBlock && shape.tileV() % schedule.vBlock != 0)
    return Status::error(
        "schedule '" + schedule.name + "': v-block=" +
        std::to_string(schedule.vBlock) +
        " does not divide the value head size V=" + std::to_string(shape.V) +
        (shape.tileV() == shape.V
             ? std::string()
             : " (tiles of " + std::to_string(shape.tileV()) + ")"));
  shape.vBlock = schedule.vBlock == shape.tileV() ? 0 : schedule.vBlock;
  if (schedule.chunk)
    shape.chunk = schedule.chunk;
  return Status::success();
}

Status gdn::parseKernel(const CompileOptions &options, const KernelShape &shape,
                        mlir::MLIRContext &context, CapturedDiagnostics &diags,
                        std::string &specialised,
                        mlir::OwningOpRef<mlir::ModuleOp> &module) {
  std::string error;
  auto file = mlir::openInputFile(options.kernelPath, &error);
  if (!file)
    return Status::error("cannot read kernel file '" + options.kernelPath +
                         "': " + error);
  if (std::optional<size_t> at =
          firstTooDeepBracket(file->getBuffer(), kMaxSourceNesting)) {
    llvm::StringRef before = file->getBuffer().take_front(*at);
    size_t line = before.count('\n') + 1;
    size_t column = *at - (before.rfind('\n') + 1) + 1;
    return Status::error("kernel '" + options.kernelPath + "':" +
                         std::to_string(line) + ":" + std::to_string(column) +
                         ": brackets nest deeper than " +
                         std::to_string(kMaxSourceNesting) +
                         " levels (MLIR's parser recurses once per level)");
  }
  specialised = specializeKernelSource(file->getBuffer().str(), shape);
  diags.sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(specialised, options.kernelPath),
      llvm::SMLoc());
  module = mlir::parseSourceFile<mlir::ModuleOp>(diags.sourceMgr, &context);
  if (!module)
    return Status::error("kernel '" + options.kernelPath +
                         "' does not parse or verify:\n" + diags.text);
  return Status::success();
}

Status gdn::scheduleKernel(const CompileOptions &options,
                           mlir::MLIRContext &context,
                           CapturedDiagnostics &diags, mlir::ModuleOp module,
                           std::map<std::string, LaunchPlan> &plans) {
  mlir::PassManager pm(&context);
  if (options.printIRAfterAll) {
    context.disableMultithreading();
    pm.enableIRPrinting();
  }
  mlir::gdn::addSchedulePass(pm, options.schedule);
  if (mlir::failed(pm.run(module)))
    return Status::error("scheduling kernel '" + options.kernelPath +
                         "' failed:\n" + diags.text);
  if (Status s = extractLaunchPlans(module, plans); !s.ok())
    return s;
  // The schedule's V-split: every launcher reads it from the plan.
  const int64_t vBlock = options.schedule.vBlock;
  for (auto &[entry, plan] : plans)
    plan.programsPerHead =
        vBlock && vBlock < options.shape.tileV()
            ? options.shape.tileV() / vBlock
            : 1;
  return Status::success();
}

bool gdn::dtypeOfElement(mlir::Type t, DType &out) {
  if (t.isBF16()) out = DType::BF16;
  else if (t.isF16()) out = DType::F16;
  else if (t.isF32()) out = DType::F32;
  else if (t.isF64()) out = DType::F64;
  else if (t.isInteger(32)) out = DType::I32;
  else if (t.isInteger(64)) out = DType::I64;
  else return false;
  return true;
}
