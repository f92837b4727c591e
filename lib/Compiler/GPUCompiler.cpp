//===- GPUCompiler.cpp - kernel file -> PTX artifact ----------------------===//

#include "KernelSource.h"
#include "gdn/Dialect/AttrNames.h"

#include "gdn/Runtime/Artifact.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

using namespace gdn;

namespace {

/// The parameters of a distributed kernel, as the runner passes them.
Status describeKernel(mlir::gpu::GPUFuncOp kernel, KernelInfo &info) {
  auto inputs = kernel.getFunctionType().getInputs();
  for (auto [i, type] : llvm::enumerate(inputs)) {
    ParamInfo p;
    bool last = i + 1 == inputs.size();
    if (auto memref = mlir::dyn_cast<mlir::MemRefType>(type)) {
      p.kind = last ? ParamInfo::Kind::Scratch : ParamInfo::Kind::MemRef;
      p.rank = memref.getRank();
      if (!last && !dtypeOfElement(memref.getElementType(), p.dtype))
        return Status::error("kernel " + kernel.getName().str() + " argument " +
                             std::to_string(i) +
                             " has an element type the runtime cannot pass");
    } else if (type.isIndex()) {
      p.kind = ParamInfo::Kind::Index;
    } else if (type.isF32()) {
      p.kind = ParamInfo::Kind::F32;
    } else if (type.isInteger(1)) {
      p.kind = ParamInfo::Kind::I1;
    } else {
      return Status::error("kernel " + kernel.getName().str() + " argument " +
                           std::to_string(i) +
                           " has a type the runtime cannot pass");
    }
    info.params.push_back(p);
  }
  auto scratch = kernel->getAttrOfType<mlir::IntegerAttr>(
      mlir::gdn::attrs::kScratchBytesPerBlock);
  info.scratchBytesPerBlock = scratch ? scratch.getInt() : 0;
  auto shared = kernel->getAttrOfType<mlir::IntegerAttr>(
      mlir::gdn::attrs::kSharedBytesPerBlock);
  info.sharedBytesPerBlock = shared ? shared.getInt() : 0;
  return Status::success();
}

} // namespace

Status gdn::compileForGPU(const CompileOptions &options, Artifact &artifact) {
  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  CapturedDiagnostics diags(context);
  std::string specialised;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  KernelShape shape;
  if (Status s = resolveKernelShape(options, shape); !s.ok())
    return s;
  // The tile lowering lays a chunk tile's rows over one warpgroup's 64-row
  // wgmma slab.
  if (shape.chunk != KernelShape::kDefaultChunk)
    return Status::error(
        "schedule '" + options.schedule.name + "': chunk=" +
        std::to_string(shape.chunk) +
        " is not supported on the GPU (its tiles take chunks of 64); the "
        "CPU back end runs chunks of 32, 64 and 128");
  if (Status s = parseKernel(options, shape, context, diags, specialised,
                             module);
      !s.ok())
    return s;

  if (std::string why = options.gpu.invalidReason(); !why.empty())
    return Status::error(why);
  auto runStage = [&](auto build, const char *what) -> Status {
    mlir::PassManager pm(&context);
    if (options.printIRAfterAll) {
      context.disableMultithreading();
      pm.enableIRPrinting();
    }
    build(pm);
    if (mlir::failed(pm.run(*module)))
      return Status::error(std::string(what) + " of kernel '" +
                           options.kernelPath + "' failed:\n" + diags.text);
    return Status::success();
  };
  std::map<std::string, LaunchPlan> plans;
  if (Status s = scheduleKernel(options, context, diags, *module, plans);
      !s.ok())
    return s;
  // The passes of gdn-gpu-pipeline after its schedule, in two steps: the
  // kernels' launch geometry is read between them.
  if (Status s = runStage(
          [&](mlir::PassManager &pm) {
            mlir::gdn::buildGPUTileLowering(pm, options.gpu);
          },
          "lowering to register-tile GPU kernels");
      !s.ok())
    return s;

  artifact = Artifact();
  artifact.plans = plans;
  artifact.chip = options.gpu.chip;
  artifact.blockSize = options.gpu.blockSize();
  artifact.shape = shape;
  artifact.source = options.kernelPath;
  Status described = Status::success();
  module->walk([&](mlir::gpu::GPUFuncOp kernel) {
    if (!kernel.isKernel() || !described.ok())
      return;
    described = describeKernel(kernel, artifact.kernels[kernel.getName().str()]);
  });
  if (!described.ok())
    return described;

  if (Status s = runStage(
          [&](mlir::PassManager &pm) {
            mlir::gdn::buildGPUTilesToPTX(pm, options.gpu.chip);
          },
          "PTX generation");
      !s.ok())
    return s;
  module->walk([&](mlir::gpu::BinaryOp binary) {
    for (mlir::Attribute object : binary.getObjects())
      if (auto obj = mlir::dyn_cast<mlir::gpu::ObjectAttr>(object))
        artifact.ptx = obj.getObject().str();
  });
  if (artifact.ptx.empty())
    return Status::error("PTX generation of kernel '" + options.kernelPath +
                         "' produced no PTX");
  return Status::success();
}
