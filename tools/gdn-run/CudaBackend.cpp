//===- CudaBackend.cpp - PTX artifacts run through the CUDA driver --------===//

#include "Backends.h"

#include <cstdio>

#ifdef GDN_WITH_MLIR
#include "gdn/Compiler/KernelCompiler.h"
#endif
#ifdef GDN_HAVE_CUDA_RUNNER
#include "gdn/Runtime/CudaRunner.h"
#endif

using namespace gdn;
using namespace gdn::run;

Status run::gpuArtifact(const BackendOptions &o, const KernelShape &shape,
                        Artifact &artifact) {
  if (!o.artifactsDir.empty()) {
    // Either an artifact directory or a root holding one per shape.
    std::string dir;
    bool autoSet = false;
    locateArtifact(o.artifactsDir, shape, dir, autoSet);
    if (Status s = readArtifact(dir, artifact); !s.ok())
      return s;
    if (!artifact.shape.sameKernel(shape))
      return Status::error("artifact '" + dir + "' was compiled for " +
                           Artifact::subdirFor(artifact.shape) +
                           ", the problem needs " + Artifact::subdirFor(shape));
    return Status::success();
  }
#ifdef GDN_WITH_MLIR
  CompileOptions c;
  c.kernelPath = o.kernelPath;
  c.shape = shape;
  c.printIRAfterAll = o.printIRAfterAll;
  c.gpu = o.gpu;
  c.schedule = o.schedule;
  return compileForGPU(c, artifact);
#else
  return Status::error("this gdn-run is a runtime-only build: give "
                       "--artifacts DIR (compiled elsewhere with "
                       "`gdn-run --emit artifact`)");
#endif
}

#ifdef GDN_HAVE_CUDA_RUNNER

bool run::cudaAvailable(std::string &why) {
  std::unique_ptr<CudaRunner> runner;
  Status s = CudaRunner::open(runner);
  why = s.message;
  return s.ok();
}

int64_t run::cudaMultiprocessors() {
  std::unique_ptr<CudaRunner> runner;
  return CudaRunner::open(runner).ok() ? runner->multiprocessors() : 0;
}

Status run::runCuda(const BackendOptions &o, PreparedCall &call,
                    std::string &timing, bool &guardsIntact) {
  Artifact artifact;
  if (Status s = gpuArtifact(o, call.shape, artifact); !s.ok())
    return s;
  std::unique_ptr<CudaRunner> runner;
  if (Status s = CudaRunner::open(runner); !s.ok())
    return s;
  if (Status s = runner->load(artifact); !s.ok())
    return s;
  ArtifactLaunch launch;
  if (Status s = planArtifactCall(artifact, call.entry, call.args, call.grid,
                                  call.chunkSlots, launch);
      !s.ok())
    return s;
  call.entry = launch.entry;
  const LaunchPlan &plan = launch.plan;
  const std::vector<PlannedLaunch> &launches = launch.launches;
  std::vector<KernelArg> args = call.args;
  args.insert(args.end(), launch.workspaces.begin(), launch.workspaces.end());
  GpuRunReport report;
  if (Status s = runner->run(launches, args, o.warmup, o.repeat, report);
      !s.ok())
    return s;
  guardsIntact = report.guardsIntact;
  char line[256];
  std::snprintf(line, sizeof(line),
                "first launch %.3f ms, median %.3f ms, min %.3f ms over %d "
                "runs (CUDA events, %s; schedule %s, %zu kernel launch%s)%s%s",
                report.firstMs, report.medianMs, report.minMs,
                report.timedLaunches, report.device.c_str(),
                plan.schedule.c_str(), launches.size(),
                launches.size() == 1 ? "" : "es",
                report.guardsIntact ? "" : "; GUARD BYTES CHANGED: ",
                report.guardMessage.c_str());
  timing = line;
  if (!plan.specializedFrom.empty())
    timing += "; entry " + call.entry + " (" +
              describeBoundArgs(plan, call.args) + ")";
  return Status::success();
}

#else

bool run::cudaAvailable(std::string &why) {
  why = "this gdn-run was built without the CUDA runner (no cuda.h)";
  return false;
}

int64_t run::cudaMultiprocessors() { return 0; }

Status run::runCuda(const BackendOptions &, PreparedCall &, std::string &,
                    bool &) {
  return Status::error("this gdn-run was built without the CUDA runner (no "
                       "cuda.h at build time); use --backend cpu");
}

#endif
