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
  // The schedule's kernels, their grids and the workspaces between them
  // (poisoned: all bits set, NaN, so a read before a write shows).
  std::vector<PlannedLaunch> launches;
  std::vector<KernelArg> args = call.args, workspaces;
  // A V-split kernel runs V / v_block programs per value head.
  Grid programs = call.grid;
  programs.x *= kernel->shape().programsPerHead();
  if (Status s = planCall(kernel->plan(call.entry), programs, call.chunkSlots,
                          launches, workspaces);
      !s.ok())
    return s;
  std::vector<std::vector<unsigned char>> memory;
  for (KernelArg &w : workspaces) {
    memory.emplace_back(static_cast<size_t>(w.elements()) * elementSize(w.dtype),
                        0xFF);
    w.data = memory.back().data();
    args.push_back(w);
  }
  for (const PlannedLaunch &l : launches)
    if (Status s = kernel->checkArguments(l.kernel, args); !s.ok())
      return s;
  double compileMs = since(t0);
  auto t1 = std::chrono::steady_clock::now();
  for (const PlannedLaunch &l : launches)
    if (Status s = kernel->jit(l.kernel); !s.ok())
      return s;
  double jitMs = since(t1);
  auto t2 = std::chrono::steady_clock::now();
  for (const PlannedLaunch &l : launches)
    if (Status s = kernel->launch(l.kernel, args, l.grid, o.threads); !s.ok())
      return s;
  char line[256];
  std::snprintf(line, sizeof(line),
                "compile %.0f ms, JIT %.0f ms, run %.1f ms (CPU, %d threads; "
                "schedule %s, %zu kernel launch%s)",
                compileMs, jitMs, since(t2), o.threads,
                kernel->plan(call.entry).schedule.c_str(), launches.size(),
                launches.size() == 1 ? "" : "es");
  timing = line;
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
