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
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {};

/// Appends the CPU pipeline (gdn -> linalg -> bufferized loops -> LLVM).
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers every gdn pass and the named pipelines (gdn-cpu-pipeline).
void registerGDNPassesAndPipelines();

} // namespace gdn
} // namespace mlir

#endif // GDN_TRANSFORMS_PASSES_H
