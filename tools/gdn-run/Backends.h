//===- Backends.h - where gdn-run compiles and runs a kernel ----*- C++ -*-===//

#ifndef GDN_RUN_BACKENDS_H
#define GDN_RUN_BACKENDS_H

#include "gdn/Driver/Launch.h"
#include "gdn/Runtime/Artifact.h"
#include "gdn/Schedule/Schedule.h"
#include "gdn/Transforms/CodegenOptions.h"

#include <string>

namespace gdn::run {

struct BackendOptions {
  std::string kernelPath;    // compile from this file (MLIR builds)
  mlir::gdn::ScheduleOptions schedule; // when compiling: parsed, concrete
  std::string artifactsDir;  // or load a compiled artifact from here
  bool printIRAfterAll = false;
  int threads = 1;           // CPU
  int warmup = 3, repeat = 20; // CUDA timing
  mlir::gdn::GPUCodegenOptions gpu;       // CUDA, when compiling
};

/// True where this binary can compile kernels (built with MLIR).
bool canCompile();

/// Compiles for the CPU and prints a stage (tile, scheduled, mlir, llvm).
Status emitCpu(const BackendOptions &options, const KernelShape &shape,
               const std::string &stage, std::string &text);
/// Compiles (or loads) the GPU artifact for `shape`.
Status gpuArtifact(const BackendOptions &options, const KernelShape &shape,
                   Artifact &artifact);

/// Runs the call; `timing` receives a one-line description of the time.
Status runCpu(const BackendOptions &options, PreparedCall &call,
              std::string &timing);
Status runCuda(const BackendOptions &options, PreparedCall &call,
               std::string &timing, bool &guardsIntact);

/// Whether a CUDA device can be used here (driver present, device found).
bool cudaAvailable(std::string &why);
/// The CUDA device's SM count; 0 where there is none.
int64_t cudaMultiprocessors();

} // namespace gdn::run

#endif // GDN_RUN_BACKENDS_H
