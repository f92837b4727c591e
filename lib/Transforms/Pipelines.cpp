//===- Pipelines.cpp - named pipelines of the gdn compiler ----------------===//

#include "gdn/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
/// Tile program -> linalg on tensors (the CPU path). Kernels call a shared
/// per-chunk function; inlining it first gives bufferization one body per
/// kernel. `beforeConversion` runs right after inlining.
void addTileToLinalg(OpPassManager &pm,
                     function_ref<void(OpPassManager &)> beforeConversion) {
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  beforeConversion(pm);
  pm.addPass(gdn::createConvertGDNToLinalg());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
}

/// Tensors -> buffers; kernel arguments keep plain (identity) layouts.
void addBufferize(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // The state carried across chunks is a fresh buffer each iteration.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
}
} // namespace

namespace {
/// gdn-schedule with the passes around it.
void addSchedulePassWith(OpPassManager &pm, std::unique_ptr<Pass> schedule) {
  // Flag-bound copies of entries first: each is scheduled like its entry.
  pm.addPass(gdn::createGDNSpecializeEntries());
  pm.addPass(std::move(schedule));
  // Each kernel starts as a copy of its entry: drop what it does not use.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
} // namespace

void gdn::addSchedulePass(OpPassManager &pm, const std::string &schedule) {
  GDNScheduleOptions options;
  options.schedule = schedule;
  addSchedulePassWith(pm, createGDNSchedule(options));
}

void gdn::addSchedulePass(OpPassManager &pm, const ScheduleOptions &schedule) {
  addSchedulePassWith(pm, createGDNSchedule(schedule));
}

void gdn::buildCPUPipeline(OpPassManager &pm,
                           const CPUPipelineOptions &options) {
  addSchedulePass(pm, options.schedule);
  buildCPULowering(pm);
}

void gdn::buildCPULowering(OpPassManager &pm) {
  addTileToLinalg(pm, [](OpPassManager &p) {
    // As the register-tile back end does, so the CPU matrix checks the
    // accumulating matmuls that back end runs.
    p.addPass(gdn::createGDNFoldMatmulAccumulate());
    p.addPass(gdn::createGDNProgramIdsToArgs());
  });
  // Fusing elementwise producers into their consumers saves passes over
  // memory; the GPU path keeps them apart so contractions stay matmuls.
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Tensors -> buffers, with deallocation of the temporaries.
  addBufferize(pm);
  pm.addPass(createForallToForLoopPass());
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  pm.addPass(createCanonicalizerPass());

  // Buffers -> loops -> LLVM.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // bf16 <-> f32 as integer ops: no dependence on compiler-rt's
  // __truncsfbf2, which the JIT's host process may not provide.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
/// Scheduled kernels -> tiles with layouts.
void addLayoutPasses(OpPassManager &pm, unsigned numWarps) {
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(gdn::createGDNFoldMatmulAccumulate());
  gdn::GDNGPUAssignLayoutsOptions assign;
  assign.numWarps = numWarps;
  pm.addPass(gdn::createGDNGPUAssignLayouts(assign));
  pm.addPass(gdn::createGDNGPURemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Conversions of loop-invariant tiles leave the chunk loop.
  pm.addPass(createLoopInvariantCodeMotionPass());
}
} // namespace

namespace {
/// The schedule the schedule pass will run (`schedule`, else gdn-opt's
/// --schedule), parsed; the defaults where it does not parse (gdn-schedule
/// then reports it, at the module's location).
gdn::ScheduleOptions scheduleToRun(const std::string &schedule) {
  const std::string &spec =
      schedule.empty() ? gdn::defaultSchedule() : schedule;
  gdn::ScheduleOptions parsed;
  std::string error;
  if (spec.empty() || !gdn::parseSchedule(spec, parsed, error))
    return gdn::ScheduleOptions();
  return parsed;
}
} // namespace

void gdn::buildGPULayoutPipeline(OpPassManager &pm,
                                 const GPULayoutPipelineOptions &options) {
  addSchedulePass(pm, options.schedule);
  int64_t warpgroups = scheduleToRun(options.schedule).warpgroups;
  addLayoutPasses(pm, warpgroups ? warpgroups * gdn::kWarpgroupThreads / 32
                                 : options.numWarps);
}

namespace {
/// Tiles with layouts in gpu.func kernels -> registers, shared memory, wgmma.
void addLowerTiles(OpPassManager &pm, const std::string &mmaPrecision,
                   bool prefetch) {
  gdn::GDNGPUStageOperandsEarlyOptions early;
  early.mmaPrecision = mmaPrecision;
  pm.addPass(gdn::createGDNGPUStageOperandsEarly(early));
  // Before the prefetch: the loads the ring takes need none.
  gdn::GDNGPUPipelineLoadsOptions ring;
  ring.mmaPrecision = mmaPrecision;
  pm.addPass(gdn::createGDNGPUPipelineLoads(ring));
  if (prefetch)
    pm.addPass(gdn::createGDNGPUPrefetchNextChunk());
  gdn::GDNGPULowerTilesOptions lower;
  lower.mmaPrecision = mmaPrecision;
  pm.addPass(createGDNGPULowerTiles(lower));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(gdn::createGDNGPUElideBarriers());
}
} // namespace

void gdn::buildGPUTileLowering(OpPassManager &pm,
                               const gdn::GPUCodegenOptions &options) {
  addLayoutPasses(pm, options.numWarps());
  GDNGPUOutlineOptions outline;
  outline.blockSize = options.blockSize();
  pm.addPass(createGDNGPUOutline(outline));
  addLowerTiles(pm, options.mma, options.prefetch);
}

void gdn::buildGPUPipeline(OpPassManager &pm, const std::string &schedule,
                           const gdn::GPUCodegenOptions &options) {
  addSchedulePass(pm, schedule);
  buildGPUTileLowering(pm, options.forSchedule(scheduleToRun(schedule)));
  buildGPUTilesToPTX(pm, options.chip);
}

gdn::GPUCodegenOptions gdn::GPUPipelineOptions::codegen() const {
  gdn::GPUCodegenOptions options;
  options.chip = chip;
  options.mma = mmaPrecision;
  options.warpgroups = warpgroups;
  options.prefetch = prefetch;
  return options;
}

void gdn::buildGPUTilesToPTXPipeline(OpPassManager &pm,
                                     const GPUTilesToPTXOptions &options) {
  addLowerTiles(pm, options.mmaPrecision, options.prefetch);
  buildGPUTilesToPTX(pm, options.chip);
}

void gdn::buildGPUTilesToPTX(OpPassManager &pm, const std::string &chip) {
  GpuNVVMAttachTargetOptions target;
  target.chip = chip;
  // wgmma.mma_async and fence.proxy.async need PTX ISA 8.0 (sm_90a).
  target.features = "+ptx80";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createSCFToControlFlowPass());
  gpu.addPass(memref::createExpandStridedMetadataPass());
  gpu.addPass(createLowerAffinePass());
  // Kernel memrefs are passed as expanded descriptors, as the runtime's
  // other kernels are (lib/Runtime/KernelArgs.h).
  gpu.addPass(createConvertGpuOpsToNVVMOps());
  // Vector ops after the memrefs are gone: convert-vector-to-llvm's type
  // converter knows no GPU address space, and run first it reported (and
  // left alone) every workgroup memref it saw.
  gpu.addPass(createConvertVectorToLLVMPass());
  gpu.addPass(createConvertNVVMToLLVMPass());
  gpu.addPass(createReconcileUnrealizedCastsPass());
  gpu.addPass(createCanonicalizerPass());
  gpu.addPass(createCSEPass());
  pm.addPass(gdn::createGDNGPUMarkTensorMaps());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void gdn::registerGDNPassesAndPipelines() {
  registerGDNPasses();
  PassPipelineRegistration<CPUPipelineOptions>(
      "gdn-cpu-pipeline",
      "Lower a gdn kernel to the LLVM dialect for CPU execution "
      "(schedule, program ids -> arguments, gdn -> linalg, bufferize, loops, LLVM)",
      buildCPUPipeline);
  // Registered through registerPassPipeline so that bad option values are
  // refused with a message instead of building a wrong pipeline.
  registerPassPipeline(
      "gdn-gpu-pipeline",
      "Lower a gdn kernel to PTX with the register-tile GPU back end "
      "(schedule, layouts, outline to a gpu.module, tiles to registers / "
      "shared memory / wgmma, NVVM, PTX in a gpu.binary); the same passes "
      "and defaults as gdn-run --emit ptx",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GPUPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        gdn::GPUCodegenOptions codegen = options.codegen();
        if (std::string why = codegen.invalidReason(); !why.empty())
          return errorHandler("gdn-gpu-pipeline: " + why);
        buildGPUPipeline(pm, options.schedule, codegen);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> printOptions) {
        printOptions(GPUPipelineOptions());
      });
  PassPipelineRegistration<GPULayoutPipelineOptions>(
      "gdn-gpu-layout-pipeline",
      "The register-tile GPU back end so far: schedule, inline, give every "
      "tile a layout anchored on the matmuls, remove needless conversions",
      buildGPULayoutPipeline);
  PassPipelineRegistration<GPUTilesToPTXOptions>(
      "gdn-gpu-tiles-to-ptx",
      "Kernels of a gpu.module in the layout IR -> PTX: lower tiles to "
      "registers, shared memory and wgmma, then GPU -> NVVM -> PTX",
      buildGPUTilesToPTXPipeline);
}
