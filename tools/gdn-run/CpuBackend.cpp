//===- CpuBackend.cpp - compile with MLIR, JIT, run over host threads -----===//

#include "Backends.h"

#include <chrono>
#include <cstdio>

#ifdef GDN_WITH_MLIR
#include "gdn/Compiler/KernelCompiler.h"
#endif

using namespace gdn;
using namespace gdn::run;

namespace {
double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t)
      .count();
}
} // namespace

#ifdef GDN_WITH_MLIR

bool run::canCompile() { return true; }

static Status compileCpu(const BackendOptions &o, const KernelShape &shape,
                         std::unique_ptr<CPUKernel> &kernel) {
  CompileOptions c;
  c.kernelPath = o.kernelPath;
  c.shape = shape;
  c.printIRAfterAll = o.printIRAfterAll;
  c.schedule = o.schedule;
  return CPUKernel::compile(c, kernel);
}

Status run::emitCpu(const BackendOptions &o, const KernelShape &shape,
                    const std::string &stage, std::string &text) {
  std::unique_ptr<CPUKernel> kernel;
  if (Status s = compileCpu(o, shape, kernel); !s.ok())
    return s;
  EmitKind kind = stage == "tile"        ? EmitKind::TileIR
                  : stage == "scheduled" ? EmitKind::Scheduled
                  : stage == "mlir"      ? EmitKind::LLVMDialect
                                         : EmitKind::LLVMIR;
  return kernel->emit(kind, text);
}

Status run::runCpu(const BackendOptions &o, PreparedCall &call,
                   std::string &timing) {
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<CPUKernel> kernel;
  if (Status s = compileCpu(o, call.shape, kernel); !s.ok())
    return s;
  double compileMs = since(t0);
  CpuCallTimes times;
  call.entry = kernel->entryFor(call.entry, call.args);
  if (Status s = runEntryOnCpu(*kernel, call.entry, call.args, call.grid,
                               call.chunkSlots, o.threads, &times);
      !s.ok())
    return s;
  const LaunchPlan plan = kernel->plan(call.entry);
  const size_t launches = plan.steps.size();
  char line[256];
  std::snprintf(line, sizeof(line),
                "compile %.0f ms, JIT %.0f ms, run %.1f ms (CPU, %d threads; "
                "schedule %s, %zu kernel launch%s)",
                compileMs, times.jitMs, times.runMs, o.threads,
                plan.schedule.c_str(), launches,
                launches == 1 ? "" : "es");
  timing = line;
  if (!plan.specializedFrom.empty())
    timing += "; entry " + call.entry + " (" +
              describeBoundArgs(plan, call.args) + ")";
  return Status::success();
}

#else // runtime-only build

bool run::canCompile() { return false; }

static Status noCompiler() {
  return Status::error("this gdn-run is a runtime-only build (no LLVM / "
                       "MLIR): it cannot compile kernels or run on the CPU; "
                       "give --artifacts DIR and --backend cuda");
}
Status run::emitCpu(const BackendOptions &, const KernelShape &,
                    const std::string &, std::string &) {
  return noCompiler();
}
Status run::runCpu(const BackendOptions &, PreparedCall &, std::string &) {
  return noCompiler();
}

#endif
