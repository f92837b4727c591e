//===- KernelCompiler.h - compile and run gdn kernels on the CPU -*- C++ -*-===//
//
// The driver's view of the compiler: specialise a kernel file, lower it with
// the gdn pipelines, print any stage, JIT it and launch it over a grid.
// No MLIR header leaks from here (pimpl), so tools that include it build fast.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_COMPILER_KERNELCOMPILER_H
#define GDN_COMPILER_KERNELCOMPILER_H

#include "gdn/Runtime/KernelArgs.h"
#include "gdn/Runtime/LaunchPlan.h"
#include "gdn/Schedule/Schedule.h"
#include "gdn/TensorIO/DType.h"
#include "gdn/TensorIO/Status.h"
#include "gdn/Transforms/CodegenOptions.h"

#include <memory>
#include <string>
#include <vector>

namespace gdn {

/// Re-binds the kernel's shape aliases (`!qk_mem = ...` etc.) to `shape`.
/// Lines defining other aliases and the rest of the file are untouched.
std::string specializeKernelSource(const std::string &source,
                                   const KernelShape &shape);

struct CompileOptions {
  std::string kernelPath;     // a .mlir file
  mlir::gdn::ScheduleOptions schedule; // fusion schedule, parsed by the caller
  KernelShape shape;
  bool printIRAfterAll = false; // every stage of the pipeline to stderr
  mlir::gdn::GPUCodegenOptions gpu;        // the GPU code generator's options
};

struct Artifact;

/// Compiles a kernel file to PTX with the GPU pipeline (gdn-gpu-pipeline)
/// and describes its kernels (parameters, scratch, launch geometry).
Status compileForGPU(const CompileOptions &options, Artifact &artifact);

/// TileIR: the specialised source; Scheduled: after gdn-schedule.
enum class EmitKind { TileIR, Scheduled, LLVMDialect, LLVMIR };

class CPUKernel {
public:
  ~CPUKernel();
  /// Reads, specialises, verifies and lowers the kernel; diagnostics (with
  /// file locations) go to stderr and the returned message.
  static Status compile(const CompileOptions &options,
                        std::unique_ptr<CPUKernel> &result);

  /// The kernel at a stage: the specialised tile program, the lowered LLVM
  /// dialect module, or LLVM IR.
  Status emit(EmitKind kind, std::string &text) const;

  /// The shape the kernel was specialised for (with the schedule's v-block:
  /// `programsPerHead()` programs per value head on the grid's x axis).
  const KernelShape &shape() const;

  /// The kernels `entry` runs as under the schedule, in launch order.
  LaunchPlan plan(const std::string &entry) const;
  /// The entry a call of `entry` runs: a flag-bound copy when one matches.
  std::string entryFor(const std::string &entry,
                       const std::vector<KernelArg> &args) const;

  /// Checks `args` against the entry's signature (count, element types,
  /// static dimensions) and names the first mismatch.
  Status checkArguments(const std::string &entry,
                        const std::vector<KernelArg> &args) const;

  /// Translates the lowered module to machine code for this host (once) and
  /// resolves `entry`; launch calls it when needed.
  Status jit(const std::string &entry);

  /// JIT-compiles on first use, then runs `entry` once per grid point on
  /// `threads` threads. Programs of one launch must not write the same memory.
  Status launch(const std::string &entry, const std::vector<KernelArg> &args,
                Grid grid, int threads);

  struct Impl;

private:
  explicit CPUKernel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Milliseconds a CPU call spent turning the module into machine code (the
/// first time) and running its launches.
struct CpuCallTimes {
  double jitMs = 0;
  double runMs = 0;
};

/// Runs `entry` as the kernel's schedule plans it: its kernels in order over
/// `programs` ([HV, B, 1], one per value head and sequence; a V-split adds
/// programs per head itself), with the workspaces between them allocated
/// poisoned (all bits set, so a read before a write shows as NaN), `slots`
/// chunk slots.
Status runEntryOnCpu(CPUKernel &kernel, const std::string &entry,
                     std::vector<KernelArg> args, Grid programs,
                     ChunkSlots slots, int threads,
                     CpuCallTimes *times = nullptr);

} // namespace gdn

#endif // GDN_COMPILER_KERNELCOMPILER_H
