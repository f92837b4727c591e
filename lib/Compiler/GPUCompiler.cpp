//===- GPUCompiler.cpp - kernel file -> PTX artifact ----------------------===//

#include "KernelSource.h"
#include "gdn/Dialect/AttrNames.h"

#include "gdn/Runtime/Artifact.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace gdn;

namespace {

/// The kernel's tensor maps (its trailing `!llvm.ptr` parameters) as
/// gdn.tensor_maps describes them; each over one of `params`' memrefs.
Status describeTensorMaps(mlir::gpu::GPUFuncOp kernel, size_t count,
                          KernelInfo &info) {
  const std::string name = kernel.getName().str();
  auto maps =
      kernel->getAttrOfType<mlir::ArrayAttr>(mlir::gdn::attrs::kTensorMaps);
  const size_t described = maps ? maps.size() : 0;
  if (described != count)
    return Status::error("kernel " + name + " has " + std::to_string(count) +
                         " tensor-map (!llvm.ptr) parameters and its " +
                         mlir::gdn::attrs::kTensorMaps.str() + " describes " +
                         std::to_string(described));
  const size_t before = info.params.size();
  if (count &&
      (before == 0 || info.params.back().kind != ParamInfo::Kind::Scratch))
    return Status::error("kernel " + name +
                         " has tensor maps but no scratch memref before them");
  for (size_t m = 0; m < count; ++m) {
    auto bad = [&](const std::string &why) {
      return Status::error("kernel " + name + " tensor map " +
                           std::to_string(m) + " (" +
                           mlir::gdn::attrs::kTensorMaps.str() + "): " + why);
    };
    auto dict = mlir::dyn_cast<mlir::DictionaryAttr>(maps[m]);
    if (!dict)
      return bad("not a dictionary");
    auto source = dict.getAs<mlir::IntegerAttr>("source");
    auto box = dict.getAs<mlir::DenseI64ArrayAttr>("box");
    auto swizzle = dict.getAs<mlir::IntegerAttr>("swizzle");
    if (!source || !box || !swizzle)
      return bad("needs source (i64), box (array<i64>) and swizzle (i64)");
    ParamInfo p;
    p.kind = ParamInfo::Kind::TensorMap;
    p.source = source.getInt();
    p.box.assign(box.asArrayRef().begin(), box.asArrayRef().end());
    p.swizzle = swizzle.getInt();
    // Not the scratch (Kind::Scratch): the runtime has no tensor for it.
    if (p.source < 0 || p.source >= static_cast<int64_t>(before) ||
        info.params[p.source].kind != ParamInfo::Kind::MemRef)
      return bad("source " + std::to_string(p.source) +
                 " is not a memref argument of the driver's");
    if (static_cast<int64_t>(p.box.size()) != info.params[p.source].rank)
      return bad("box has " + std::to_string(p.box.size()) +
                 " dimensions, the memref " +
                 std::to_string(info.params[p.source].rank));
    for (size_t d = 0; d < p.box.size(); ++d)
      if (p.box[d] < 1 || p.box[d] > 256)
        return bad("box dimension " + std::to_string(d) + " is " +
                   std::to_string(p.box[d]) + ", not 1 .. 256 (TMA)");
    if (p.swizzle != 0 && p.swizzle != 128)
      return bad("swizzle " + std::to_string(p.swizzle) + " is not 0 or 128");
    info.params.push_back(p);
  }
  return Status::success();
}

/// The parameters of a distributed kernel, as the runner passes them: the
/// driver's arguments, the scratch memref (the last memref), then the
/// tensor maps (trailing `!llvm.ptr` parameters).
Status describeKernel(mlir::gpu::GPUFuncOp kernel, KernelInfo &info) {
  auto all = kernel.getFunctionType().getInputs();
  size_t maps = 0;
  while (maps < all.size() &&
         mlir::isa<mlir::LLVM::LLVMPointerType>(all[all.size() - 1 - maps]))
    ++maps;
  auto inputs = all.drop_back(maps);
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
  if (Status s = describeTensorMaps(kernel, maps, info); !s.ok())
    return s;
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

  // The schedule's own warpgroups= wins over the code generator's.
  const mlir::gdn::GPUCodegenOptions gpu =
      options.gpu.forSchedule(options.schedule);
  if (std::string why = gpu.invalidReason(); !why.empty())
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
            mlir::gdn::buildGPUTileLowering(pm, gpu);
          },
          "lowering to register-tile GPU kernels");
      !s.ok())
    return s;
  // Remarks of a lowering that succeeded (a schedule's stages= that did not
  // fit a loop's ring in shared memory) are the user's to see.
  if (!diags.text.empty()) {
    llvm::errs() << diags.text;
    diags.text.clear();
  }

  artifact = Artifact();
  artifact.plans = plans;
  artifact.chip = gpu.chip;
  artifact.blockSize = gpu.blockSize();
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
            mlir::gdn::buildGPUTilesToPTX(pm, gpu.chip);
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
