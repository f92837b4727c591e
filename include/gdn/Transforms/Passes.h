//===- Passes.h - passes and pipelines of the gdn compiler ------*- C++ -*-===//

#ifndef GDN_TRANSFORMS_PASSES_H
#define GDN_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace gdn {

#define GEN_PASS_DECL
#include "Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Passes.h.inc"

/// Patterns that lower gdn compute ops to linalg / tensor / scf and tile
/// loads and stores to memref loops (the body of convert-gdn-to-linalg).
void populateGDNToLinalgPatterns(RewritePatternSet &patterns);

/// Options of the CPU pipeline: from a kernel in the gdn dialect down to the
/// LLVM dialect, ready for the ExecutionEngine.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("fusion schedule: fused, staged, staged-bf16, split-seq "
                     "or a schedule file (empty: gdn-opt's --schedule, else "
                     "fused)"),
      llvm::cl::init("")};
};

/// Appends gdn-schedule with `schedule` (see Schedule.h).
void addSchedulePass(OpPassManager &pm, const std::string &schedule);

/// Appends the CPU pipeline: gdn-schedule, then buildCPULowering.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);
/// The CPU pipeline after scheduling (gdn -> linalg -> loops -> LLVM).
void buildCPULowering(OpPassManager &pm);

/// Options of the GPU pipeline.
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimisation level"),
      llvm::cl::init(3)};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size", llvm::cl::desc("threads per block"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> sharedMemory{
      *this, "shared-memory",
      llvm::cl::desc("bytes of dynamic shared memory per block for tiles "
                     "(192 KiB: fits sm_90's 227 KiB with the bf16 slabs)"),
      llvm::cl::init(196608)};
  PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("fusion schedule: fused, staged, staged-bf16, split-seq "
                     "or a schedule file (empty: gdn-opt's --schedule, else "
                     "fused)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> mma{
      *this, "mma",
      llvm::cl::desc("tensor-core operand precision: tf32 or bf16"),
      llvm::cl::init("tf32")};
};

/// The register-tile back end after the schedule: layouts, outlining, tiles
/// to registers / shared memory / wgmma (`warpgroups` warpgroups per block,
/// splitting every matmul's N; with `prefetch`, chunk loops ask for the next
/// chunk's tiles in L2). Leaves gpu.func kernels for buildGPUTilesToPTX.
void buildGPUTileLowering(OpPassManager &pm, const std::string &mmaPrecision,
                          int64_t warpgroups = 2, bool prefetch = true);
/// gpu.module kernels after gdn-gpu-lower-tiles -> NVVM -> PTX.
void buildGPUTilesToPTX(OpPassManager &pm, const std::string &chip);
/// Threads of one warpgroup: the register-tile back end's kernels have one
/// or two per block.
constexpr int64_t kWarpgroupThreads = 128;

/// First half of the GPU pipeline: gdn -> linalg -> buffers -> a gpu.module
/// whose kernels have their tile work spread over threads (tensor cores for
/// matmuls). Kernels carry `gdn.scratch_bytes_per_block`.
void buildGPUKernelPipeline(OpPassManager &pm, const GPUPipelineOptions &options);
/// buildGPUKernelPipeline without its first pass, gdn-schedule.
void buildGPULowering(OpPassManager &pm, const GPUPipelineOptions &options);

/// Second half: the gpu.module -> NVVM -> PTX in a gpu.binary (upstream
/// gpu-lower-to-nvvm-pipeline with format=isa).
void buildGPUToPTXPipeline(OpPassManager &pm, const GPUPipelineOptions &options);

/// The register-tile back end (docs/GPUBackend.md), as far as it goes: the
/// scheduled kernel with a layout on every tile.
struct GPULayoutPipelineOptions
    : public PassPipelineOptions<GPULayoutPipelineOptions> {
  PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("fusion schedule: fused, staged, staged-bf16, split-seq "
                     "or a schedule file (empty: gdn-opt's --schedule, else "
                     "fused)"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> numWarps{
      *this, "num-warps",
      llvm::cl::desc("warps per block (a multiple of 4)"), llvm::cl::init(4)};
};

void buildGPULayoutPipeline(OpPassManager &pm,
                            const GPULayoutPipelineOptions &options);

/// gpu.module kernels in the layout IR -> PTX: gdn-gpu-lower-tiles, then
/// upstream GPU -> NVVM (kernel memrefs as expanded descriptors) and PTX.
struct GPUTilesToPTXOptions : public PassPipelineOptions<GPUTilesToPTXOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture (wgmma needs sm_90a)"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> mmaPrecision{
      *this, "mma-precision",
      llvm::cl::desc("tensor-core operand precision: tf32 or bf16"),
      llvm::cl::init("tf32")};
  PassOptions::Option<bool> prefetch{
      *this, "prefetch",
      llvm::cl::desc("chunk loops ask for the next chunk's tiles in L2 "
                     "(gdn-gpu-prefetch-next-chunk)"),
      llvm::cl::init(true)};
};

void buildGPUTilesToPTXPipeline(OpPassManager &pm,
                                const GPUTilesToPTXOptions &options);

/// Registers every gdn pass and the named pipelines (gdn-cpu-pipeline,
/// gdn-gpu-pipeline).
void registerGDNPassesAndPipelines();

} // namespace gdn
} // namespace mlir

#endif // GDN_TRANSFORMS_PASSES_H
