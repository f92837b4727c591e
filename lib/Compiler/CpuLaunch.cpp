//===- CpuLaunch.cpp - run an entry's schedule on the CPU -----------------===//
//
// Shared by gdn-run and the C library: the plan's kernels in order, their
// grids, and the workspaces between them.
//
//===----------------------------------------------------------------------===//

#include "gdn/Compiler/KernelCompiler.h"

#include <chrono>

using namespace gdn;

namespace {
double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t)
      .count();
}
} // namespace

Status gdn::runEntryOnCpu(CPUKernel &kernel, const std::string &entry,
                          std::vector<KernelArg> args, Grid programs,
                          ChunkSlots slots, int threads,
                          CpuCallTimes *times) {
  std::vector<PlannedLaunch> launches;
  std::vector<KernelArg> workspaces;
  if (Status s = planCall(kernel.plan(entry), programs, slots, launches,
                          workspaces);
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
    if (Status s = kernel.checkArguments(l.kernel, args); !s.ok())
      return s;
  auto t0 = std::chrono::steady_clock::now();
  for (const PlannedLaunch &l : launches)
    if (Status s = kernel.jit(l.kernel); !s.ok())
      return s;
  double jitMs = since(t0);
  auto t1 = std::chrono::steady_clock::now();
  for (const PlannedLaunch &l : launches)
    if (Status s = kernel.launch(l.kernel, args, l.grid, threads); !s.ok())
      return s;
  if (times) {
    times->jitMs = jitMs;
    times->runMs = since(t1);
  }
  return Status::success();
}
