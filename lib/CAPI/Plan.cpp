//===- Plan.cpp - gdn_plan: a validated call, run on other addresses ------===//
//
// A serving engine calls the kernels once per layer with tensors of one
// layout (the step's shapes) at different addresses. A plan validates the
// layout once and keeps what the call resolved to; a run only rebinds the
// addresses, rechecks what depends on them (alignment, aliasing) and, for
// an unchecked device call, launches the kernels it resolved. Host calls
// and checked calls read the index tensors each time, so their runs take
// gdn_call's whole path on the new addresses.
//
//===----------------------------------------------------------------------===//

#include "Aliasing.h"
#include "Call.h"
#include "Context.h"
#include "DeviceCall.h"

#include "gdn/Runtime/CudaRunner.h"

#include <map>
#include <string>
#include <vector>

using namespace gdn;
using namespace gdn::capi;

struct gdn_plan {
  gdn_context *context = nullptr;
  run::Interface interface = run::Interface::Paged;
  gdn_call_flags flags{};
  /// The layout of the tensors, by name; runs rebind their addresses.
  std::map<std::string, TensorView> views;
  /// views' entries in the order of the names given at creation.
  std::vector<TensorView *> byPosition;
  /// An unchecked device call: run by relaunching `device`.
  bool relaunch = false;
  DeviceLaunchPlan device;
  /// For each of device.callerArgs, the position of its tensor.
  std::vector<std::pair<size_t, size_t>> argPositions;
};

extern "C" gdn_status gdn_plan_create(gdn_context *context, int32_t interface,
                                      int32_t count, const char *const *names,
                                      const DLTensor *const *tensors,
                                      const gdn_call_flags *flags, void *stream,
                                      gdn_plan **plan) {
  return guarded([&]() -> gdn_status {
    if (!context || !plan)
      return fail(Status::error("gdn_plan_create: context or plan is NULL"));
    *plan = nullptr;
    if (Status s = checkInterface(interface); !s.ok())
      return fail(Status::error("gdn_plan_create: " + s.message));
    auto made = std::make_unique<gdn_plan>();
    made->context = context;
    made->interface = interface == GDN_INTERFACE_POOL ? run::Interface::Pool
                                                      : run::Interface::Paged;
    if (flags)
      made->flags = *flags;
    else
      gdn_call_flags_init(&made->flags);
    if (made->flags.validate_only)
      return fail(Status::error(
          "gdn_plan_create: validate_only is set; a plan is for running"));
    if (Status s = importViews(count, names, tensors, made->views); !s.ok())
      return refuse(s);
    for (int32_t i = 0; i < count; ++i)
      made->byPosition.push_back(&made->views.at(names[i]));

    bool onDevice = false;
    for (const auto &[name, view] : made->views)
      onDevice |= !view.onHost;
    std::lock_guard<std::mutex> lock(context->mutex);
    bool runtimeFailure = false;
    Status s;
    if (onDevice && !made->flags.checked) {
      made->relaunch = true;
      s = prepareOnDevice(*context, interface, made->views, made->flags, stream,
                          made->device, runtimeFailure);
      for (const auto &[arg, name] : made->device.callerArgs)
        for (size_t p = 0; p < made->byPosition.size(); ++p)
          if (made->byPosition[p]->name == name)
            made->argPositions.emplace_back(arg, p);
    } else {
      s = runCall(*context, made->interface, made->views, made->flags, stream,
                  runtimeFailure, /*dryRun=*/true);
    }
    if (!s.ok())
      return runtimeFailure ? fail(s, GDN_ERROR_RUNTIME) : refuse(s);
    *plan = made.release();
    return succeed();
  });
}

extern "C" gdn_status gdn_plan_run(gdn_plan *plan, const void *const *data,
                                   void *stream) {
  return guarded([&]() -> gdn_status {
    if (!plan || (!data && !plan->byPosition.empty()))
      return fail(Status::error("gdn_plan_run: plan or data is NULL"));
    std::lock_guard<std::mutex> lock(plan->context->mutex);
    for (size_t p = 0; p < plan->byPosition.size(); ++p) {
      TensorView &view = *plan->byPosition[p];
      view.data = static_cast<char *>(const_cast<void *>(data[p]));
      if (!view.data && view.numel() > 0)
        return refuse(Status::error("tensor '" + view.name + "' " +
                                    view.describe() +
                                    " has no data pointer"));
    }
    if (Status s = checkNoAliasing(plan->views); !s.ok())
      return refuse(s);
    // No tokens: nothing runs, as gdn_call (which checks no alignment then).
    if (plan->relaunch && plan->device.nothingToRun)
      return succeed();
    bool runtimeFailure = false;
    Status s;
    if (plan->relaunch) {
      for (const TensorView *view : plan->byPosition)
        if (view->numel() > 0)
          if (Status a = checkDeviceAlignment(view->name, view->data); !a.ok())
            return refuse(a);
      for (const auto &[arg, position] : plan->argPositions)
        plan->device.args[arg].data = plan->byPosition[position]->data;
      s = launchPlanned(plan->device, stream);
      runtimeFailure = true;
    } else {
      s = runCall(*plan->context, plan->interface, plan->views, plan->flags,
                  stream, runtimeFailure);
    }
    if (s.ok())
      return succeed();
    return runtimeFailure ? fail(s, GDN_ERROR_RUNTIME) : refuse(s);
  });
}

extern "C" void gdn_plan_destroy(gdn_plan *plan) { delete plan; }
