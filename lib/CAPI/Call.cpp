//===- Call.cpp - gdn_call: one prefill call on borrowed tensors ----------===//
//
// Validates the call as gdn-run does (same messages), then runs it on the
// caller's memory: q / k / v / o and the state pool are passed to the
// kernel as they are. The pool may be fp32, bf16 or fp16 and its rows may
// be padded apart (the kernels take its row stride); nothing is copied.
//
//===----------------------------------------------------------------------===//

#include "Call.h"
#include "Aliasing.h"
#include "Context.h"
#include "DeviceCall.h"
#include "TensorImport.h"

#include "gdn/Driver/AutoSchedule.h"
#include "gdn/Driver/Launch.h"
#include "gdn/Driver/Problem.h"

#ifdef GDN_WITH_MLIR
#include "gdn/Compiler/KernelCompiler.h"
#endif

#include <map>
#include <set>

using namespace gdn;
using namespace gdn::capi;
using namespace gdn::run;

namespace {

// Tensors the kernels read or write in place, as the caller laid them out.
bool isBorrowed(const std::string &name) {
  return name == "q" || name == "k" || name == "v" || name == "state_pool" ||
         name == "o";
}

Status notContiguous(const TensorView &v) {
  return Status::error("tensor '" + v.name + "' " + v.describe() +
                       " has strides " + shapeToString(v.strides) +
                       "; expected a contiguous (row-major) tensor");
}

} // namespace

Status capi::runCall(gdn_context &context, Interface interface,
                     const std::map<std::string, TensorView> &views,
                     const gdn_call_flags &flags, void *stream,
                     bool &runtimeFailure, bool dryRun) {
  runtimeFailure = false;
  for (const auto &[name, view] : views)
    if (!view.onHost) {
      if (dryRun) {
        DeviceLaunchPlan unused;
        return prepareOnDevice(context, interface == Interface::Pool
                                            ? GDN_INTERFACE_POOL
                                            : GDN_INTERFACE_PAGED,
                               views, flags, stream, unused, runtimeFailure);
      }
      return runOnDevice(context, interface == Interface::Pool
                                      ? GDN_INTERFACE_POOL
                                      : GDN_INTERFACE_PAGED,
                         views, flags, stream, runtimeFailure);
    }
  auto outIt = views.find("o");
  if (outIt == views.end())
    return Status::error("missing tensor 'o' (the output [T, HV, V])");
  const TensorView &out = outIt->second;

  Problem problem;
  problem.interface = interface;
  problem.flags = callFlags(flags);

  const TensorView *pool = nullptr;
  for (const auto &[name, view] : views) {
    if (name == "o")
      continue;
    if (name == "state_pool") {
      pool = &view;
      if (!view.compactRows())
        return Status::error(
            "tensor 'state_pool' " + view.describe() + " has strides " +
            shapeToString(view.strides) +
            "; expected dense [HV, V, K] rows (only the row stride may be "
            "padded)");
      // The kernels' own, padded rows included (16-bit pools are read and
      // written in place).
      problem.tensors[name] = shapeOnly(view);
      continue;
    }
    if (isBorrowed(name)) {
      if (!view.compact())
        return notContiguous(view);
      problem.tensors[name] = shapeOnly(view);
      continue;
    }
    problem.tensors[name] = copyToHost(view);
  }
  if (Status s = validateProblem(problem); !s.ok())
    return s;
  if (Status s = bindChunkSize(problem, context.schedule); !s.ok())
    return s;
  if (Status s = checkOutput(out, problem.tensors.at("v")); !s.ok())
    return s;
  if (!out.compact())
    return notContiguous(out);
  if (flags.checked || flags.validate_only) {
    if (Status s = checkGateValues(problem); !s.ok())
      return s;
    for (const char *name : {"q", "k", "v"})
      if (Status s = checkFiniteValues(views.at(name)); !s.ok())
        return s;
  }
  // No new tokens: nothing to compute, no state to write (SPEC.md).
  if (problem.dims.T == 0 || flags.validate_only || dryRun)
    return Status::success();

  // The pages the call writes must be writable as the table names them.
  WriteSet writes;
  if (Status s = expectedWrites(problem, writes); !s.ok())
    return s;
  // The CPU follows the GPU's choices (an H200's SMs assumed).
  const ResolvedSchedule schedule =
      resolveSchedule(context.schedule, problem, /*sms=*/0);
  PreparedCall call;
  HostTensor unusedOutput;
  if (Status s = prepareCall(problem, unusedOutput, call); !s.ok())
    return s;
  // The kernels read and write the caller's memory.
  for (KernelArg &arg : call.args) {
    if (arg.kind != KernelArg::Kind::Buffer || !isBorrowed(arg.name))
      continue;
    arg.data = views.at(arg.name).data;
    if (arg.name == "state_pool")
      arg.outerStride = poolRowStride(*pool);
  }

  runtimeFailure = true;
  CPUKernel *kernel = nullptr;
  if (Status s = context.cpuKernel(schedule.schedule, call.shape, kernel); !s.ok())
    return s;
#ifdef GDN_WITH_MLIR
  call.entry = kernel->entryFor(call.entry, call.args);
  if (Status s = runEntryOnCpu(*kernel, call.entry, call.args, call.grid,
                               call.chunkSlots, context.threads);
      !s.ok())
    return s;
#endif

  return Status::success();
}

Status capi::importViews(int32_t count, const char *const *names,
                         const DLTensor *const *tensors,
                         std::map<std::string, TensorView> &views) {
  if (count < 0 || (count > 0 && (!names || !tensors)))
    return Status::error("no tensors given");
  for (int32_t i = 0; i < count; ++i) {
    if (!names[i] || !tensors[i])
      return Status::error("tensor " + std::to_string(i) +
                           " has no name or no DLTensor");
    std::string name = names[i];
    if (views.count(name))
      return Status::error("tensor '" + name + "' is given twice");
    TensorView view;
    if (Status s = viewTensor(name, *tensors[i], view); !s.ok())
      return s;
    views.emplace(std::move(name), std::move(view));
  }
  return checkNoAliasing(views);
}

Status capi::checkInterface(int32_t interface) {
  if (interface != GDN_INTERFACE_POOL && interface != GDN_INTERFACE_PAGED)
    return Status::error("interface " + std::to_string(interface) +
                         " is neither GDN_INTERFACE_POOL (0) nor "
                         "GDN_INTERFACE_PAGED (1)");
  return Status::success();
}

extern "C" gdn_status gdn_call(gdn_context *context, int32_t interface,
                               int32_t count, const char *const *names,
                               const DLTensor *const *tensors,
                               const gdn_call_flags *flags, void *stream) {
  return capi::guarded([&]() -> gdn_status {
    if (!context)
      return fail(Status::error("gdn_call: context is NULL"));
    if (Status s = checkInterface(interface); !s.ok())
      return fail(Status::error("gdn_call: " + s.message));
    gdn_call_flags defaults;
    gdn_call_flags_init(&defaults);
    std::map<std::string, TensorView> views;
    if (Status s = importViews(count, names, tensors, views); !s.ok())
      return refuse(s);
    std::lock_guard<std::mutex> lock(context->mutex);
    bool runtimeFailure = false;
    Status s = runCall(*context,
                       interface == GDN_INTERFACE_POOL ? Interface::Pool
                                                       : Interface::Paged,
                       views, flags ? *flags : defaults, stream, runtimeFailure);
    if (s.ok())
      return succeed();
    return runtimeFailure ? fail(s, GDN_ERROR_RUNTIME) : refuse(s);
  });
}
