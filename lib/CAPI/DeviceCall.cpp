//===- DeviceCall.cpp - gdn_call on device tensors ------------------------===//
//
// The call is validated from shapes and dtypes alone (the index tensors
// stay on the device; checked mode copies them over and validates them as
// a host call would), then its kernels are launched on the caller's
// stream with the caller's device addresses.
//
//===----------------------------------------------------------------------===//

#include "DeviceCall.h"
#include "KernelCache.h"

#include "gdn/Driver/AutoSchedule.h"
#include "gdn/Driver/Launch.h"
#include "gdn/Driver/Problem.h"

#include <filesystem>

#ifdef GDN_HAVE_CUDA_RUNNER
#include "gdn/Runtime/CudaRunner.h"
#endif

using namespace gdn;
using namespace gdn::capi;
using namespace gdn::run;

DeviceKernel::~DeviceKernel() = default;

#ifdef GDN_HAVE_CUDA_RUNNER

namespace {

bool isGate(const std::string &name) {
  return name == "a" || name == "b" || name == "g" || name == "beta" ||
         name == "A_log" || name == "dt_bias";
}
bool isIndex(const std::string &name) {
  return name == "cu_seqlens" || name == "cache_indices" ||
         name == "page_indices" || name == "page_indptr" ||
         name == "last_page_len";
}

/// The artifact in `dir`, loaded on `device` once per context.
Status loadArtifact(gdn_context &context, const std::string &dir, int device,
                    const KernelShape &shape, DeviceKernel *&kernel) {
  const std::string key = std::to_string(device) + ":" + dir;
  auto it = context.deviceKernels.find(key);
  if (it == context.deviceKernels.end()) {
    auto k = std::make_unique<DeviceKernel>();
    if (Status s = readArtifact(dir, k->artifact); !s.ok())
      return s;
    const KernelShape &a = k->artifact.shape;
    if (!a.sameKernel(shape))
      return Status::error("artifact '" + dir + "' was compiled for " +
                           Artifact::subdirFor(a) + ", the call needs " +
                           Artifact::subdirFor(shape));
    std::unique_ptr<CudaRunner> runner;
    if (Status s = CudaRunner::open(runner, device); !s.ok())
      return s;
    k->runner = std::move(runner);
    if (Status s = k->runner->load(k->artifact); !s.ok())
      return s;
    it = context.deviceKernels.emplace(key, std::move(k)).first;
  }
  kernel = it->second.get();
  return Status::success();
}

/// The runner of `device` that copies checked calls' tensors and reports
/// the SM count, opened once per context.
Status deviceRunner(gdn_context &context, int device, CudaRunner *&runner) {
  auto &runners = context.deviceRunners;
  auto it = runners.find(device);
  if (it == runners.end()) {
    std::unique_ptr<CudaRunner> opened;
    if (Status s = CudaRunner::open(opened, device); !s.ok())
      return s;
    it = runners.emplace(device, std::shared_ptr<CudaRunner>(std::move(opened)))
             .first;
  }
  runner = it->second.get();
  return Status::success();
}

/// Where the context's artifacts directory keeps `shape`'s artifact (the
/// directory itself, its per-shape subdirectory, or an auto set there),
/// looked up once per shape.
const LocatedArtifact &locate(gdn_context &context, const KernelShape &shape) {
  const std::string subdir = Artifact::subdirFor(shape);
  auto it = context.locatedArtifacts.find(subdir);
  if (it == context.locatedArtifacts.end()) {
    LocatedArtifact found;
    locateArtifact(context.artifactsDir, shape, found.dir, found.autoSet);
    it = context.locatedArtifacts.emplace(subdir, found).first;
  }
  return it->second;
}

/// The kernels for the call: the context's artifact for its shape, the
/// member of an auto set the rule picks for it, or the kernel cache's
/// artifact. Resolved once per (device, shape, schedule) and remembered,
/// so a call does no file I/O after the first.
Status deviceKernel(gdn_context &context, const Problem &problem, int device,
                    DeviceKernel *&kernel) {
  static const ScheduleRequest kAuto = ScheduleRequest::automatic();
  const KernelShape shape = shapeOf(problem);
  const LocatedArtifact *located =
      context.artifactsDir.empty() ? nullptr : &locate(context, shape);
  // An auto set picks per call whatever the context's schedule says.
  const ScheduleRequest &request =
      located && located->autoSet ? kAuto : context.schedule;
  int64_t sms = 0;
  if (request.isAuto) {
    CudaRunner *runner = nullptr;
    if (Status s = deviceRunner(context, device, runner); !s.ok())
      return s;
    sms = runner->multiprocessors();
  }
  const ResolvedSchedule resolved = resolveSchedule(request, problem, sms);
  const std::string key = std::to_string(device) + "|" +
                          Artifact::subdirFor(shape) + "|" +
                          resolved.schedule.str();
  if (auto it = context.resolvedKernels.find(key);
      it != context.resolvedKernels.end()) {
    kernel = it->second;
    return Status::success();
  }
  std::string dir;
  if (!located) {
    // Compiled on first use into the kernel cache (builds with MLIR).
    if (Status s = cachedArtifact(context, shape, resolved.schedule, dir);
        !s.ok())
      return s;
  } else if (located->autoSet) {
    if (Status s = pickFromAutoSet(located->dir, resolved.pick->name,
                                   resolved.pick->schedule, dir);
        !s.ok())
      return s;
  } else {
    dir = located->dir;
    std::error_code ec;
    if (!std::filesystem::exists(dir + "/manifest.json", ec))
      return Status::error(
          "no artifacts for K=" + std::to_string(shape.K) +
          " V=" + std::to_string(shape.V) + " " + dtypeName(shape.io) +
          (shape.state == DType::F32
               ? std::string()
               : std::string(" with a ") + dtypeName(shape.state) +
                     " state pool") +
          " in '" + context.artifactsDir + "' (looked for '" + dir +
          "'); make them with `gdn-run --emit artifact --head-dim-k " +
          std::to_string(shape.K) + " --head-dim-v " +
          std::to_string(shape.V) + " --dtype " +
          (shape.io == DType::F16 ? "f16" : "bf16") +
          (shape.state == DType::F32
               ? std::string()
               : std::string(" --state-dtype ") +
                     (shape.state == DType::F16 ? "f16" : "bf16")) +
          " -o " + dir + "`");
  }
  if (Status s = loadArtifact(context, dir, device, shape, kernel); !s.ok())
    return s;
  context.resolvedKernels[key] = kernel;
  return Status::success();
}

} // namespace

Status capi::prepareOnDevice(gdn_context &context, int interface,
                             const std::map<std::string, TensorView> &views,
                             const gdn_call_flags &flags, void *stream,
                             DeviceLaunchPlan &plan, bool &runtimeFailure) {
  runtimeFailure = false;
  plan = DeviceLaunchPlan();
  int device = -1;
  for (const auto &[name, view] : views) {
    if (view.onHost)
      return Status::typeError(
          "tensor '" + name + "' " + view.describe() +
          " is on the host but others are on a CUDA device; a call's "
          "tensors must all be on one device");
    if (device >= 0 && view.deviceId != device)
      return Status::error("tensor '" + name + "' is on CUDA device " +
                           std::to_string(view.deviceId) +
                           ", others on device " + std::to_string(device));
    device = view.deviceId;
    // A state pool's rows may be padded apart (seed 004): the kernels take
    // its row stride, which must keep every row on a 16-byte boundary (the
    // rows move as 16-byte vectors).
    const bool pool = name == "state_pool";
    if (pool ? !view.compactRows() : !view.compact())
      return Status::error(
          "tensor '" + name + "' " + view.describe() + " has strides " +
          shapeToString(view.strides) +
          (pool ? "; expected dense [HV, V, K] rows (only the row stride may "
                  "be padded)"
                : "; device tensors must be contiguous (row-major)"));
    if (const int64_t stride = pool ? poolRowStride(view) : 0;
        stride * elementSize(view.dtype) % 16 != 0)
      return Status::error(
          "tensor 'state_pool' " + view.describe() + " has a row stride of " +
          std::to_string(stride) + " elements (" +
          std::to_string(stride * elementSize(view.dtype)) +
          " bytes); on the GPU rows padded apart must start on 16-byte "
          "boundaries");
    if (isGate(name) && view.dtype != DType::F32)
      return Status::typeError(
          "tensor '" + name + "' is " + view.describe() +
          "; on the GPU gates are read as F32 (float32): convert it once "
          "before the call (host calls convert it themselves)");
    if (isIndex(name) && view.dtype != DType::I64)
      return Status::typeError(
          "tensor '" + name + "' is " + view.describe() +
          "; on the GPU index tensors are read as I64 (int64): convert it "
          "once before the call (host calls convert it themselves)");
  }
  auto outIt = views.find("o");
  if (outIt == views.end())
    return Status::error("missing tensor 'o' (the output [T, HV, V])");
  const TensorView &out = outIt->second;

  Problem problem;
  problem.interface = interface == GDN_INTERFACE_POOL ? Interface::Pool
                                                      : Interface::Paged;
  problem.flags = callFlags(flags);
  const bool checked = flags.checked || flags.validate_only;
  problem.shapesOnly = !checked;

  for (const auto &[name, view] : views) {
    if (name == "o")
      continue;
    HostTensor h = shapeOnly(view);
    if (checked && (isGate(name) || isIndex(name))) {
      // Checked mode reads them on the host, after the stream's pending
      // work (a copy on the call's stream, then a wait).
      CudaRunner *copier = nullptr;
      if (Status s = deviceRunner(context, device, copier); !s.ok()) {
        runtimeFailure = true;
        return s;
      }
      h.data.resize(static_cast<size_t>(view.numel()) * elementSize(view.dtype));
      if (Status s = copier->copyToHost(h.data.data(), view.data,
                                        h.data.size(), stream);
          !s.ok()) {
        runtimeFailure = true;
        return s;
      }
    }
    problem.tensors[name] = std::move(h);
  }
  if (Status s = validateProblem(problem); !s.ok())
    return s;
  if (Status s = bindChunkSize(problem, context.schedule); !s.ok())
    return s;
  if (Status s = checkOutput(out, problem.tensors.at("v")); !s.ok())
    return s;
  if (checked)
    if (Status s = checkGateValues(problem); !s.ok())
      return s;
  // No new tokens: nothing to compute, no state to write (SPEC.md).
  if (problem.dims.T == 0 || flags.validate_only) {
    plan.nothingToRun = true;
    return Status::success();
  }
  for (const auto &[name, view] : views)
    if (view.numel() > 0)
      if (Status s = checkDeviceAlignment(name, view.data); !s.ok())
        return s;

  runtimeFailure = true;
  DeviceKernel *kernel = nullptr;
  if (Status s = deviceKernel(context, problem, device, kernel); !s.ok())
    return s;
  PreparedCall call;
  HostTensor unusedOutput;
  if (Status s = prepareCall(problem, unusedOutput, call); !s.ok())
    return s;
  // Caller's device addresses; inputs the call does not use (a paged call's
  // A_log / dt_bias without the gate in the kernel) read device zeros.
  for (size_t i = 0; i < call.args.size(); ++i) {
    KernelArg &arg = call.args[i];
    if (arg.kind != KernelArg::Kind::Buffer)
      continue;
    auto it = views.find(arg.name);
    if (it != views.end()) {
      arg.data = it->second.data;
      if (arg.name == "state_pool")
        arg.outerStride = poolRowStride(it->second);
      plan.callerArgs.emplace_back(i, arg.name);
      continue;
    }
    const void *zeros = nullptr;
    if (Status s = kernel->runner->zeros(
            static_cast<size_t>(arg.elements()) * elementSize(arg.dtype),
            zeros);
        !s.ok())
      return s;
    arg.data = const_cast<void *>(zeros);
  }
  ArtifactLaunch launch;
  if (Status s = planArtifactCall(kernel->artifact, call.entry, call.args,
                                  call.grid, call.chunkSlots, launch);
      !s.ok())
    return s;
  call.args.insert(call.args.end(), launch.workspaces.begin(),
                   launch.workspaces.end());
  plan.kernel = kernel;
  plan.args = std::move(call.args);
  plan.launches = std::move(launch.launches);
  return Status::success();
}

Status capi::launchPlanned(const DeviceLaunchPlan &plan, void *stream) {
  if (plan.nothingToRun)
    return Status::success();
  return plan.kernel->runner->launchOnDevice(plan.launches, plan.args, stream);
}

Status capi::runOnDevice(gdn_context &context, int interface,
                         const std::map<std::string, TensorView> &views,
                         const gdn_call_flags &flags, void *stream,
                         bool &runtimeFailure) {
  DeviceLaunchPlan plan;
  if (Status s = prepareOnDevice(context, interface, views, flags, stream,
                                 plan, runtimeFailure);
      !s.ok())
    return s;
  runtimeFailure = true;
  return launchPlanned(plan, stream);
}

#else // no cuda.h at build time

namespace {
Status noCudaRunner(const std::map<std::string, TensorView> &views) {
  return Status::typeError("tensor '" + views.begin()->first +
                           "' is on a CUDA device, but this gdn library was "
                           "built without the CUDA runner (no cuda.h)");
}
} // namespace

Status capi::prepareOnDevice(gdn_context &, int,
                             const std::map<std::string, TensorView> &views,
                             const gdn_call_flags &, void *, DeviceLaunchPlan &,
                             bool &runtimeFailure) {
  runtimeFailure = false;
  return noCudaRunner(views);
}

Status capi::launchPlanned(const DeviceLaunchPlan &, void *) {
  return Status::error("this gdn library was built without the CUDA runner");
}

Status capi::runOnDevice(gdn_context &, int,
                         const std::map<std::string, TensorView> &views,
                         const gdn_call_flags &, void *, bool &runtimeFailure) {
  runtimeFailure = false;
  return noCudaRunner(views);
}

#endif
