//===- Context.cpp - contexts, options and errors of the C library --------===//

#include "Context.h"
#include "DeviceCall.h"
#include "KernelCache.h"

#include "gdn/Driver/AutoSchedule.h"

#include <cstring>

#include <thread>

#ifdef GDN_WITH_MLIR
#include "gdn/Compiler/KernelCompiler.h"
#endif

using namespace gdn;

#ifndef GDN_KERNELS_DIR
#define GDN_KERNELS_DIR "kernels"
#endif

namespace {
thread_local std::string lastError;
} // namespace

gdn_status capi::fail(const Status &status, gdn_status code) {
  lastError = status.message;
  return code;
}

gdn_status capi::refuse(const Status &status) {
  return fail(status, status.wrongType ? GDN_ERROR_TYPE : GDN_ERROR_VALUE);
}

gdn_status capi::succeed() {
  lastError.clear();
  return GDN_OK;
}

gdn_context::~gdn_context() = default;

Status gdn_context::cpuKernel(const mlir::gdn::ScheduleOptions &schedule,
                              const KernelShape &shape, CPUKernel *&kernel) {
#ifdef GDN_WITH_MLIR
  std::string key = schedule.str() + "|K" + std::to_string(shape.K) + "|V" +
                    std::to_string(shape.V) + "|" + dtypeName(shape.io) +
                    "|" + dtypeName(shape.state);
  auto it = cpuKernels.find(key);
  if (it == cpuKernels.end()) {
    CompileOptions options;
    options.kernelPath = kernelPath;
    options.schedule = schedule;
    options.shape = shape;
    std::unique_ptr<CPUKernel> compiled;
    if (Status s = CPUKernel::compile(options, compiled); !s.ok())
      return s;
    it = cpuKernels.emplace(key, std::move(compiled)).first;
  }
  kernel = it->second.get();
  return Status::success();
#else
  (void)schedule;
  (void)shape;
  kernel = nullptr;
  return Status::error("this gdn library was built without LLVM / MLIR: it "
                       "cannot compile kernels, and host tensors run on the "
                       "CPU back end, which compiles them");
#endif
}

extern "C" {

const char *gdn_last_error(void) { return lastError.c_str(); }

int32_t gdn_api_version(void) { return GDN_C_API_VERSION; }

int32_t gdn_can_compile(void) {
#ifdef GDN_WITH_MLIR
  return 1;
#else
  return 0;
#endif
}

void gdn_context_options_init(gdn_context_options *options) {
  if (!options)
    return;
  options->kernel_path = nullptr;
  options->schedule = nullptr;
  options->cpu_threads = 0;
  options->artifacts_dir = nullptr;
  options->cache_dir = nullptr;
}

gdn_status gdn_context_create(const gdn_context_options *options,
                              gdn_context **context) {
  return capi::guarded([&]() -> gdn_status {
    if (!context)
      return capi::fail(Status::error("gdn_context_create: context is NULL"));
    *context = nullptr;
    gdn_context_options defaults;
    gdn_context_options_init(&defaults);
    const gdn_context_options &o = options ? *options : defaults;
    if (o.cpu_threads < 0)
      return capi::fail(Status::error(
          "cpu_threads is " + std::to_string(o.cpu_threads) +
          "; expected 0 (every core) or a positive thread count"));
    // Parsed once, here: a wrong schedule is a wrong argument, refused now
    // rather than at the first call.
    auto c = std::make_unique<gdn_context>();
    std::string error;
    if (!run::ScheduleRequest::parse(
            o.schedule && *o.schedule ? o.schedule : "fused", c->schedule,
            error))
      return capi::fail(Status::error(error));
    c->kernelPath = o.kernel_path && *o.kernel_path
                        ? o.kernel_path
                        : GDN_KERNELS_DIR "/gdn_chunked.mlir";
    c->artifactsDir = o.artifacts_dir ? o.artifacts_dir : "";
    c->cacheDir = o.cache_dir ? o.cache_dir : "";
    c->threads = o.cpu_threads
                     ? o.cpu_threads
                     : std::max(1u, std::thread::hardware_concurrency());
    *context = c.release();
    return capi::succeed();
  });
}

void gdn_context_destroy(gdn_context *context) { delete context; }

void gdn_call_flags_init(gdn_call_flags *flags) {
  if (!flags)
    return;
  flags->page_size = 256;
  flags->chunk_size = 0; // the schedule's chunk=, else 64
  flags->has_scale = 0;
  flags->scale = 0;
  flags->gate_domain = GDN_GATE_LINEAR;
  flags->use_gate_in_kernel = 0;
  flags->beta_is_logit = 0;
  flags->qk_l2norm = 0;
  flags->checked = 1;
  flags->validate_only = 0;
}

gdn_status gdn_cached_artifact(gdn_context *context, int64_t K, int64_t V,
                               const char *dtype, char *path, int64_t size) {
  return capi::guarded([&]() -> gdn_status {
    if (!context || !dtype || !path || size <= 0)
      return capi::fail(Status::error("gdn_cached_artifact: a NULL argument"));
    KernelShape shape;
    shape.K = K;
    shape.V = V;
    const std::string io = dtype;
    if (io == "bf16" || io == "bfloat16" || io == "BF16")
      shape.io = DType::BF16;
    else if (io == "f16" || io == "float16" || io == "F16")
      shape.io = DType::F16;
    else
      return capi::fail(Status::typeError("dtype '" + io +
                                          "'; expected bf16 or f16"),
                        GDN_ERROR_TYPE);
    for (auto [name, d, max] : {std::tuple{"K", K, KernelShape::kMaxK},
                                std::tuple{"V", V, KernelShape::kMaxV}})
      if (d < 1 || d > max)
        return capi::fail(Status::error(std::string("head size ") + name +
                                        " = " + std::to_string(d) +
                                        ": expected 1 to " +
                                        std::to_string(max)));
    if (context->schedule.isAuto)
      return capi::fail(Status::error(
          "gdn_cached_artifact: schedule 'auto' picks per call among several "
          "artifacts; ask for a concrete schedule"));
    std::lock_guard<std::mutex> lock(context->mutex);
    std::string dir;
    if (Status s = capi::cachedArtifact(*context, shape,
                                        context->schedule.concrete, dir);
        !s.ok())
      return capi::fail(s, GDN_ERROR_RUNTIME);
    if (static_cast<int64_t>(dir.size()) >= size)
      return capi::fail(Status::error("gdn_cached_artifact: the path needs " +
                                      std::to_string(dir.size() + 1) +
                                      " bytes, got " + std::to_string(size)));
    std::memcpy(path, dir.c_str(), dir.size() + 1);
    return capi::succeed();
  });
}

} // extern "C"
