//===- Passes.h - passes and pipelines of the gdn compiler ------*- C++ -*-===//

#ifndef GDN_TRANSFORMS_PASSES_H
#define GDN_TRANSFORMS_PASSES_H

#include "gdn/Transforms/CodegenOptions.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace gdn {

struct ScheduleOptions;

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

/// gdn-schedule building the schedule its caller parsed (its string
/// option is not read).
std::unique_ptr<Pass> createGDNSchedule(const ScheduleOptions &parsed);

/// Appends gdn-schedule with `schedule` (a name, text or file, parsed by
/// the pass; see gdn/Schedule/Schedule.h), with the passes around it.
void addSchedulePass(OpPassManager &pm, const std::string &schedule);
/// The same with a schedule parsed already (the compiler's path).
void addSchedulePass(OpPassManager &pm, const ScheduleOptions &schedule);

/// Appends the CPU pipeline: gdn-schedule, then buildCPULowering.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);
/// The CPU pipeline after scheduling (gdn -> linalg -> loops -> LLVM).
void buildCPULowering(OpPassManager &pm);

/// gdn-opt's options of the register-tile GPU back end; their defaults are
/// GPUCodegenOptions' (gdn/Transforms/CodegenOptions.h), as gdn-run's are.
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("fusion schedule: a name, a schedule text or file "
                     "(docs/Schedules.md; empty: gdn-opt's --schedule, else "
                     "fused)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture (wgmma needs sm_90a)"),
      llvm::cl::init(kDefaultChip)};
  PassOptions::Option<std::string> mmaPrecision{
      *this, "mma-precision",
      llvm::cl::desc("tensor-core operand precision: auto (the inputs' "
                     "16-bit type), bf16, f16 or tf32"),
      llvm::cl::init(kDefaultMma)};
  PassOptions::Option<int64_t> warpgroups{
      *this, "warpgroups",
      llvm::cl::desc("warpgroups per block, 1 or 2 (2 splits every "
                     "matmul's N between them); the schedule's own "
                     "warpgroups= wins"),
      llvm::cl::init(kDefaultWarpgroups)};
  PassOptions::Option<bool> prefetch{
      *this, "prefetch",
      llvm::cl::desc("chunk loops ask for the next chunk's tiles in L2 "
                     "(gdn-gpu-prefetch-next-chunk)"),
      llvm::cl::init(GPUCodegenOptions().prefetch)};

  /// The code generator's options these spell.
  GPUCodegenOptions codegen() const;
};

/// The register-tile back end after the schedule: layouts, outlining, tiles
/// to registers / shared memory / wgmma. Leaves gpu.func kernels for
/// buildGPUTilesToPTX.
void buildGPUTileLowering(OpPassManager &pm,
                          const GPUCodegenOptions &options);
/// gpu.module kernels after gdn-gpu-lower-tiles -> NVVM -> PTX in a
/// gpu.binary.
void buildGPUTilesToPTX(OpPassManager &pm, const std::string &chip);
/// The whole GPU back end (gdn-gpu-pipeline): gdn-schedule with `schedule`,
/// buildGPUTileLowering, buildGPUTilesToPTX. compileForGPU runs the same
/// passes in these two steps, reading the kernels' launch geometry between
/// them.
void buildGPUPipeline(OpPassManager &pm, const std::string &schedule,
                      const GPUCodegenOptions &options);

/// The register-tile back end's first stage alone: the scheduled kernel with
/// a layout on every tile.
struct GPULayoutPipelineOptions
    : public PassPipelineOptions<GPULayoutPipelineOptions> {
  PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("fusion schedule: a name, a schedule text or file "
                     "(empty: gdn-opt's --schedule, else fused)"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> numWarps{
      *this, "num-warps",
      llvm::cl::desc("warps per block (a multiple of 4); the schedule's "
                     "own warpgroups= wins"),
      llvm::cl::init(GPUCodegenOptions().numWarps())};
};

void buildGPULayoutPipeline(OpPassManager &pm,
                            const GPULayoutPipelineOptions &options);

/// The back end's last stage alone: gpu.module kernels in the layout IR
/// (after gdn-gpu-outline) -> PTX.
struct GPUTilesToPTXOptions : public PassPipelineOptions<GPUTilesToPTXOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture (wgmma needs sm_90a)"),
      llvm::cl::init(kDefaultChip)};
  PassOptions::Option<std::string> mmaPrecision{
      *this, "mma-precision",
      llvm::cl::desc("tensor-core operand precision: auto (the inputs' "
                     "16-bit type), bf16, f16 or tf32"),
      llvm::cl::init(kDefaultMma)};
  PassOptions::Option<bool> prefetch{
      *this, "prefetch",
      llvm::cl::desc("chunk loops ask for the next chunk's tiles in L2 "
                     "(gdn-gpu-prefetch-next-chunk)"),
      llvm::cl::init(GPUCodegenOptions().prefetch)};
};

void buildGPUTilesToPTXPipeline(OpPassManager &pm,
                                const GPUTilesToPTXOptions &options);

/// Registers every gdn pass and the named pipelines (gdn-cpu-pipeline,
/// gdn-gpu-pipeline and its stages).
void registerGDNPassesAndPipelines();

} // namespace gdn
} // namespace mlir

#endif // GDN_TRANSFORMS_PASSES_H
