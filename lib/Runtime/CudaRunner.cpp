//===- CudaRunner.cpp - run compiled kernels through the CUDA driver ------===//

#include "gdn/Runtime/CudaRunner.h"
#include "gdn/Runtime/TensorMap.h"
#include "gdn/TensorIO/HostTensor.h"

#include <cuda.h>

#include <algorithm>
#include <map>
#include <cstring>
#include <dlfcn.h>

using namespace gdn;

namespace {

// Driver entry points, looked up in libcuda at run time.
struct Driver {
  void *lib = nullptr;
#define GDN_CU_FN(name, ...) CUresult (*name)(__VA_ARGS__) = nullptr;
  GDN_CU_FN(Init, unsigned)
  GDN_CU_FN(DeviceGet, CUdevice *, int)
  GDN_CU_FN(DeviceGetName, char *, int, CUdevice)
  GDN_CU_FN(DeviceGetAttribute, int *, CUdevice_attribute, CUdevice)
  GDN_CU_FN(DevicePrimaryCtxRetain, CUcontext *, CUdevice)
  GDN_CU_FN(CtxSetCurrent, CUcontext)
  GDN_CU_FN(CtxSynchronize)
  GDN_CU_FN(ModuleLoadDataEx, CUmodule *, const void *, unsigned, CUjit_option *, void **)
  GDN_CU_FN(ModuleUnload, CUmodule)
  GDN_CU_FN(ModuleGetFunction, CUfunction *, CUmodule, const char *)
  GDN_CU_FN(MemAlloc, CUdeviceptr *, size_t)
  GDN_CU_FN(MemFree, CUdeviceptr)
  GDN_CU_FN(MemcpyHtoD, CUdeviceptr, const void *, size_t)
  GDN_CU_FN(MemcpyDtoH, void *, CUdeviceptr, size_t)
  GDN_CU_FN(MemsetD8, CUdeviceptr, unsigned char, size_t)
  GDN_CU_FN(LaunchKernel, CUfunction, unsigned, unsigned, unsigned, unsigned,
            unsigned, unsigned, unsigned, CUstream, void **, void **)
  GDN_CU_FN(EventCreate, CUevent *, unsigned)
  GDN_CU_FN(EventRecord, CUevent, CUstream)
  GDN_CU_FN(EventSynchronize, CUevent)
  GDN_CU_FN(EventElapsedTime, float *, CUevent, CUevent)
  GDN_CU_FN(EventDestroy, CUevent)
  GDN_CU_FN(GetErrorString, CUresult, const char **)
  GDN_CU_FN(FuncSetAttribute, CUfunction, CUfunction_attribute, int)
  GDN_CU_FN(CtxGetCurrent, CUcontext *)
  GDN_CU_FN(DevicePrimaryCtxRelease, CUdevice)
  GDN_CU_FN(MemcpyDtoHAsync, void *, CUdeviceptr, size_t, CUstream)
  GDN_CU_FN(StreamSynchronize, CUstream)
  GDN_CU_FN(StreamIsCapturing, CUstream, CUstreamCaptureStatus *)
  GDN_CU_FN(MemAllocAsync, CUdeviceptr *, size_t, CUstream)
  GDN_CU_FN(MemFreeAsync, CUdeviceptr, CUstream)
  // Optional (CUDA 12+): only launches of kernels with tensor maps need it.
  GDN_CU_FN(TensorMapEncodeTiled, CUtensorMap *, CUtensorMapDataType,
            cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *,
            const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
            CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill)
#undef GDN_CU_FN

  template <typename F> bool bind(F &fn, const char *name) {
    // Versioned names first (cuMemAlloc is cuMemAlloc_v2 in cuda.h).
    std::string v2 = std::string(name) + "_v2";
    void *sym = dlsym(lib, v2.c_str());
    if (!sym)
      sym = dlsym(lib, name);
    fn = reinterpret_cast<F>(sym);
    return sym != nullptr;
  }
};

constexpr size_t kGuardBytes = 4096;
constexpr unsigned char kGuardByte = 0xA5;

} // namespace

struct CudaRunner::Impl {
  Driver cu;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  std::string deviceName;
  int64_t multiprocessors = 0;
  int64_t sharedBytesOptIn = 0; // the most shared memory a block may have
  const Artifact *artifact = nullptr;
  // launchOnDevice: workspaces and scratch, one arena per stream, reused
  // by that stream's calls (stream order keeps them apart). A grown arena's
  // old block is retired, not freed: launches in flight or graphs captured
  // earlier may still use it. Everything is freed with the runner.
  struct Block {
    CUdeviceptr at = 0;
    size_t bytes = 0;
  };
  std::map<CUstream, Block> arenas;
  Block zeros;
  std::vector<CUdeviceptr> retired;
  bool ownsPrimary = false;

  struct Loaded {
    CUfunction fn;
    unsigned sharedBytes;
    // Per call (set by resolveKernels and packParams): the kernel's
    // description, and where its parameter list starts in the call's
    // params (kernels with tensor maps have lists of their own).
    const KernelInfo *info = nullptr;
    size_t paramsAt = 0;
  };
  /// The module's kernels by name, resolved on first launch.
  std::map<std::string, Loaded> functions;
  Status resolveKernels(const std::vector<PlannedLaunch> &launches,
                        const std::vector<KernelArg> &args,
                        std::vector<Loaded> &loaded, size_t &scratchBytes);
  template <typename AddressOf>
  Status packParams(const std::vector<KernelArg> &args, AddressOf address,
                    CUdeviceptr scratch, size_t scratchBytes,
                    std::vector<Loaded> &loaded, std::vector<int64_t> &words,
                    std::vector<void *> &params);
  Status launch(const std::vector<PlannedLaunch> &launches,
                const std::vector<Loaded> &loaded, void **params,
                CUstream stream);

  Status check(CUresult r, const std::string &what) {
    if (r == CUDA_SUCCESS)
      return Status::success();
    const char *msg = "unknown error";
    if (cu.GetErrorString)
      cu.GetErrorString(r, &msg);
    return Status::error(what + " failed: " + msg + " (CUresult " +
                         std::to_string(static_cast<int>(r)) + ")");
  }
};

int64_t CudaRunner::multiprocessors() const { return impl->multiprocessors; }

CudaRunner::CudaRunner(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}

namespace {
/// Makes a context current for a scope and restores the caller's: the
/// library runs inside processes (torch) whose current device is theirs.
class ScopedContext {
public:
  ScopedContext(Driver &cu, CUcontext context) : cu(cu) {
    if (cu.CtxGetCurrent(&previous) != CUDA_SUCCESS)
      previous = nullptr;
    switched = previous != context;
    if (switched)
      cu.CtxSetCurrent(context);
  }
  ~ScopedContext() {
    if (switched)
      cu.CtxSetCurrent(previous);
  }

private:
  Driver &cu;
  CUcontext previous = nullptr;
  bool switched = false;
};
} // namespace

CudaRunner::~CudaRunner() {
  if (!impl || !impl->context)
    return;
  Driver &cu = impl->cu;
  {
    ScopedContext scope(cu, impl->context);
    if (impl->module)
      cu.ModuleUnload(impl->module);
    for (auto &[stream, block] : impl->arenas)
      cu.MemFree(block.at);
    if (impl->zeros.at)
      cu.MemFree(impl->zeros.at);
    for (CUdeviceptr at : impl->retired)
      cu.MemFree(at);
  }
  if (impl->ownsPrimary)
    cu.DevicePrimaryCtxRelease(impl->device);
}

namespace {
CUtensorMapDataType tensorMapDataType(DType dtype) {
  switch (dtype) {
  case DType::BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  default: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32; // checkTensorMap: F32
  }
}

/// "workspace 0 (chunks) F32[128, 8, 513, 64, 256], ...": where a
/// workspace too large to allocate comes from (its slot axis counts chunks
/// of the longest sequence; a call whose lengths are not read counts all T
/// tokens for every sequence).
std::string describeWorkspaces(const std::vector<KernelArg> &args) {
  std::string out;
  for (const KernelArg &a : args) {
    if (a.kind != KernelArg::Kind::Workspace)
      continue;
    out += (out.empty() ? "" : ", ") + a.name + " " + dtypeName(a.dtype) +
           shapeToString(a.shape);
  }
  return out.empty() ? "scratch only" : out;
}

constexpr size_t kTensorMapWords = sizeof(CUtensorMap) / sizeof(int64_t);
static_assert(sizeof(CUtensorMap) == 128 && kTensorMapWords == 16,
              "a tensor-map parameter is 128 bytes");
} // namespace

/// Parameter words of a launch as MLIR's GPU lowering expects them: each
/// memref expanded to (allocated, aligned, offset, sizes, strides), then
/// the scratch memref; a kernel with tensor maps then gets a list of its
/// own, those words followed by its maps (128 bytes each, encoded here).
/// `address(i)` is where buffer argument i lives. Sets loaded[i].paramsAt.
template <typename AddressOf>
Status CudaRunner::Impl::packParams(const std::vector<KernelArg> &args,
                                    AddressOf address, CUdeviceptr scratch,
                                    size_t scratchBytes,
                                    std::vector<Loaded> &loaded,
                                    std::vector<int64_t> &words,
                                    std::vector<void *> &params) {
  // Sized first: params point into words, and a launch per layer call
  // should not reallocate.
  size_t common = 5;
  for (const KernelArg &a : args)
    common += a.kind == KernelArg::Kind::Buffer ||
                      a.kind == KernelArg::Kind::Workspace
                  ? 3 + 2 * a.shape.size()
                  : 1;
  size_t mapWords = 0, mapParams = 0;
  for (const Loaded &l : loaded)
    if (size_t maps = l.info->tensorMaps()) {
      mapWords += kTensorMapWords * maps;
      mapParams += common + maps;
    }
  words.clear();
  words.reserve(common + mapWords);
  auto push = [&](int64_t v) { words.push_back(v); };
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg &a = args[i];
    if (a.kind == KernelArg::Kind::Buffer ||
        a.kind == KernelArg::Kind::Workspace) {
      int64_t at = static_cast<int64_t>(address(i));
      push(at); // allocated
      push(at); // aligned
      push(0);  // offset
      for (int64_t d : a.shape)
        push(d);
      // Row-major strides, written in place back to front.
      const size_t first = words.size();
      words.resize(first + a.shape.size());
      int64_t stride = 1;
      for (size_t d = a.shape.size(); d-- > 0;) {
        words[first + d] = stride;
        stride *= a.shape[d];
      }
      if (a.outerStride && !a.shape.empty())
        words[first] = a.outerStride; // rows padded apart
    } else if (a.kind == KernelArg::Kind::Index) {
      push(a.index);
    } else if (a.kind == KernelArg::Kind::F32) {
      int64_t w = 0;
      std::memcpy(&w, &a.f32, sizeof(float));
      push(w);
    } else {
      push(a.i1 ? 1 : 0); // read as one byte (.u8 in PTX)
    }
  }
  push(static_cast<int64_t>(scratch));
  push(static_cast<int64_t>(scratch));
  push(0);
  push(static_cast<int64_t>(scratchBytes));
  push(1);
  params.clear();
  params.reserve(common + mapParams);
  for (int64_t &w : words)
    params.push_back(&w);
  // Kernels without tensor maps share that list.
  for (size_t i = 0; i < loaded.size(); ++i) {
    Loaded &l = loaded[i];
    l.paramsAt = 0;
    const size_t maps = l.info->tensorMaps();
    if (!maps)
      continue;
    // A kernel launched twice in a plan encodes its maps once.
    auto same = std::find_if(loaded.begin(), loaded.begin() + i,
                             [&](const Loaded &o) { return o.info == l.info; });
    if (same != loaded.begin() + i) {
      l.paramsAt = same->paramsAt;
      continue;
    }
    l.paramsAt = params.size();
    for (size_t w = 0; w < common; ++w)
      params.push_back(&words[w]);
    for (size_t m = 0; m < maps; ++m) {
      const ParamInfo &p = l.info->params[l.info->params.size() - maps + m];
      const CUdeviceptr at = address(static_cast<size_t>(p.source));
      TensorMapLayout layout;
      if (Status s =
              tensorMapLayout(p, args, static_cast<uint64_t>(at), layout);
          !s.ok())
        return s;
      CUtensorMap map; // 64-byte aligned, as the encoder requires
      std::memset(&map, 0, sizeof map);
      if (!layout.empty) {
        static const cuuint32_t ones[TensorMapLayout::kMaxRank] = {1, 1, 1, 1,
                                                                   1};
        CUresult r = cu.TensorMapEncodeTiled(
            &map, tensorMapDataType(layout.dtype), layout.rank,
            reinterpret_cast<void *>(at), layout.globalDim,
            layout.globalStrides, layout.boxDim, ones,
            CU_TENSOR_MAP_INTERLEAVE_NONE,
            layout.swizzle128 ? CU_TENSOR_MAP_SWIZZLE_128B
                              : CU_TENSOR_MAP_SWIZZLE_NONE,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE); // out of bounds: zeros
        if (r != CUDA_SUCCESS)
          return check(r, "tensor map of " + args[p.source].name +
                              ": cuTensorMapEncodeTiled");
      }
      // Within the reservation: the pointers taken so far stay valid.
      const size_t first = words.size();
      words.resize(first + kTensorMapWords);
      std::memcpy(&words[first], &map, sizeof map);
      params.push_back(&words[first]);
    }
  }
  return Status::success();
}

Status CudaRunner::open(std::unique_ptr<CudaRunner> &runner) {
  return open(runner, 0);
}

Status CudaRunner::open(std::unique_ptr<CudaRunner> &runner, int ordinal) {
  auto impl = std::make_unique<Impl>();
  Driver &cu = impl->cu;
  cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cu.lib)
    return Status::error("no CUDA driver on this machine (libcuda.so.1 "
                         "cannot be loaded); use --backend cpu");
  bool ok = cu.bind(cu.Init, "cuInit") && cu.bind(cu.DeviceGet, "cuDeviceGet") &&
            cu.bind(cu.DeviceGetName, "cuDeviceGetName") &&
            cu.bind(cu.DeviceGetAttribute, "cuDeviceGetAttribute") &&
            cu.bind(cu.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
            cu.bind(cu.CtxSetCurrent, "cuCtxSetCurrent") &&
            cu.bind(cu.CtxSynchronize, "cuCtxSynchronize") &&
            cu.bind(cu.ModuleLoadDataEx, "cuModuleLoadDataEx") &&
            cu.bind(cu.ModuleUnload, "cuModuleUnload") &&
            cu.bind(cu.ModuleGetFunction, "cuModuleGetFunction") &&
            cu.bind(cu.MemAlloc, "cuMemAlloc") && cu.bind(cu.MemFree, "cuMemFree") &&
            cu.bind(cu.MemcpyHtoD, "cuMemcpyHtoD") &&
            cu.bind(cu.MemcpyDtoH, "cuMemcpyDtoH") &&
            cu.bind(cu.MemsetD8, "cuMemsetD8") &&
            cu.bind(cu.LaunchKernel, "cuLaunchKernel") &&
            cu.bind(cu.EventCreate, "cuEventCreate") &&
            cu.bind(cu.EventRecord, "cuEventRecord") &&
            cu.bind(cu.EventSynchronize, "cuEventSynchronize") &&
            cu.bind(cu.EventElapsedTime, "cuEventElapsedTime") &&
            cu.bind(cu.EventDestroy, "cuEventDestroy") &&
            cu.bind(cu.GetErrorString, "cuGetErrorString") &&
            cu.bind(cu.FuncSetAttribute, "cuFuncSetAttribute") &&
            cu.bind(cu.CtxGetCurrent, "cuCtxGetCurrent") &&
            cu.bind(cu.DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease") &&
            cu.bind(cu.MemcpyDtoHAsync, "cuMemcpyDtoHAsync") &&
            cu.bind(cu.StreamSynchronize, "cuStreamSynchronize") &&
            cu.bind(cu.StreamIsCapturing, "cuStreamIsCapturing") &&
            cu.bind(cu.MemAllocAsync, "cuMemAllocAsync") &&
            cu.bind(cu.MemFreeAsync, "cuMemFreeAsync");
  if (!ok)
    return Status::error("libcuda.so.1 lacks a driver API function this "
                         "runtime needs (driver too old?)");
  cu.bind(cu.TensorMapEncodeTiled, "cuTensorMapEncodeTiled"); // optional
  if (Status s = impl->check(cu.Init(0), "cuInit"); !s.ok())
    return s;
  if (Status s = impl->check(cu.DeviceGet(&impl->device, ordinal),
                             "cuDeviceGet(" + std::to_string(ordinal) + ")");
      !s.ok())
    return s;
  char name[256] = {0};
  cu.DeviceGetName(name, sizeof(name) - 1, impl->device);
  impl->deviceName = name;
  int sms = 0;
  if (Status s = impl->check(
          cu.DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                impl->device),
          "cuDeviceGetAttribute");
      !s.ok())
    return s;
  impl->multiprocessors = sms;
  int optIn = 0;
  if (Status s = impl->check(
          cu.DeviceGetAttribute(
              &optIn, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              impl->device),
          "cuDeviceGetAttribute");
      !s.ok())
    return s;
  impl->sharedBytesOptIn = optIn;
  if (Status s = impl->check(
          cu.DevicePrimaryCtxRetain(&impl->context, impl->device),
          "cuDevicePrimaryCtxRetain");
      !s.ok())
    return s;
  impl->ownsPrimary = true;
  runner.reset(new CudaRunner(std::move(impl)));
  return Status::success();
}

Status CudaRunner::load(const Artifact &artifact) {
  ScopedContext scope(impl->cu, impl->context);
  impl->artifact = &artifact;
  impl->functions.clear();
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
  Status s = impl->check(impl->cu.ModuleLoadDataEx(&impl->module,
                                                   artifact.ptx.c_str(), 2,
                                                   options, values),
                         "loading the PTX (cuModuleLoadDataEx)");
  if (!s.ok())
    return Status::error(s.message + "\n" + log);
  return Status::success();
}

Status CudaRunner::run(const std::vector<PlannedLaunch> &launches,
                       const std::vector<KernelArg> &args, int warmup,
                       int timedLaunches, GpuRunReport &report) {
  Impl &I = *impl;
  Driver &cu = I.cu;
  ScopedContext scope(cu, I.context);
  report = GpuRunReport();
  report.device = I.deviceName;
  if (launches.empty())
    return Status::error("nothing to launch");

  std::vector<Impl::Loaded> loaded;
  size_t scratchBytes = 0;
  if (Status s = I.resolveKernels(launches, args, loaded, scratchBytes);
      !s.ok())
    return s;

  // Device buffers, each with guard bytes on both sides. Workspaces are
  // poisoned (all bits set: NaN) and never copied.
  struct Buffer {
    CUdeviceptr base = 0; // allocation, guard first
    size_t bytes = 0;
    CUdeviceptr data() const { return base + kGuardBytes; }
  };
  std::vector<Buffer> buffers(args.size());
  Buffer scratch;
  auto freeAll = [&]() {
    for (Buffer &b : buffers)
      if (b.base)
        cu.MemFree(b.base);
    if (scratch.base)
      cu.MemFree(scratch.base);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg &a = args[i];
    if (a.kind != KernelArg::Kind::Buffer &&
        a.kind != KernelArg::Kind::Workspace)
      continue;
    Buffer &b = buffers[i];
    b.bytes = static_cast<size_t>(a.elements()) * elementSize(a.dtype);
    if (Status s = I.check(cu.MemAlloc(&b.base, b.bytes + 2 * kGuardBytes),
                           "cuMemAlloc(" + a.name + ", " +
                               std::to_string(b.bytes) + " bytes)");
        !s.ok()) {
      freeAll();
      return s;
    }
    cu.MemsetD8(b.base, kGuardByte, b.bytes + 2 * kGuardBytes);
    if (a.kind == KernelArg::Kind::Workspace)
      cu.MemsetD8(b.data(), 0xFF, b.bytes);
    else if (b.bytes)
      cu.MemcpyHtoD(b.data(), a.data, b.bytes);
  }
  // Scratch: grid size times the bytes one block needs (the largest of the
  // plan's kernels; they run one after another).
  scratch.bytes = scratchBytes;
  if (Status s = I.check(cu.MemAlloc(&scratch.base,
                                     std::max<size_t>(scratch.bytes, 256) +
                                         2 * kGuardBytes),
                         "cuMemAlloc(scratch)");
      !s.ok()) {
    freeAll();
    return s;
  }
  std::vector<int64_t> words;
  std::vector<void *> params;
  if (Status s = I.packParams(
          args, [&](size_t i) { return buffers[i].data(); }, scratch.data(),
          scratch.bytes, loaded, words, params);
      !s.ok()) {
    freeAll();
    return s;
  }

  auto launchAll = [&]() {
    return I.launch(launches, loaded, params.data(), nullptr);
  };
  CUevent start, stop;
  cu.EventCreate(&start, 0);
  cu.EventCreate(&stop, 0);
  auto timed = [&](float &ms) -> Status {
    cu.EventRecord(start, nullptr);
    if (Status s = launchAll(); !s.ok())
      return s;
    cu.EventRecord(stop, nullptr);
    if (Status s = I.check(cu.EventSynchronize(stop),
                           "running " + launches.front().kernel);
        !s.ok())
      return s;
    cu.EventElapsedTime(&ms, start, stop);
    return Status::success();
  };
  float first = 0;
  Status status = timed(first);
  report.firstMs = first;
  // Results of the first launch, and the guards around every buffer.
  for (size_t i = 0; status.ok() && i < args.size(); ++i) {
    const Buffer &b = buffers[i];
    if (!b.base)
      continue;
    if (b.bytes && args[i].kind == KernelArg::Kind::Buffer)
      cu.MemcpyDtoH(args[i].data, b.data(), b.bytes);
    std::vector<unsigned char> guard(kGuardBytes);
    for (CUdeviceptr at : {b.base, b.data() + b.bytes}) {
      cu.MemcpyDtoH(guard.data(), at, kGuardBytes);
      if (std::any_of(guard.begin(), guard.end(),
                      [](unsigned char c) { return c != kGuardByte; })) {
        report.guardsIntact = false;
        report.guardMessage += "bytes around " + args[i].name + " changed; ";
      }
    }
  }
  std::vector<float> times;
  for (int i = 0; status.ok() && i < warmup + timedLaunches; ++i) {
    float ms = 0;
    status = timed(ms);
    if (i >= warmup)
      times.push_back(ms);
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    report.medianMs = times[times.size() / 2];
    report.minMs = times.front();
    report.timedLaunches = static_cast<int>(times.size());
  }
  cu.EventDestroy(start);
  cu.EventDestroy(stop);
  freeAll();
  return status;
}

Status CudaRunner::Impl::resolveKernels(
    const std::vector<PlannedLaunch> &launches,
    const std::vector<KernelArg> &args, std::vector<Loaded> &loaded,
    size_t &scratchBytes) {
  loaded.clear();
  scratchBytes = 0;
  // Every kernel of a plan takes the same arguments, then its scratch.
  for (const PlannedLaunch &l : launches) {
    auto kit = artifact->kernels.find(l.kernel);
    if (kit == artifact->kernels.end())
      return Status::error("the artifact has no kernel '" + l.kernel + "'");
    const KernelInfo &info = kit->second;
    const size_t maps = info.tensorMaps();
    if (info.params.size() != args.size() + 1 + maps)
      return Status::error("kernel '" + l.kernel + "' takes " +
                           std::to_string(info.params.size() - 1 - maps) +
                           " arguments besides scratch and its " +
                           std::to_string(maps) +
                           " tensor maps, the driver passes " +
                           std::to_string(args.size()));
    if (maps && !cu.TensorMapEncodeTiled)
      return Status::error("kernel '" + l.kernel +
                           "' takes tensor maps, and this CUDA driver has no "
                           "cuTensorMapEncodeTiled (CUDA 12 or newer)");
    for (size_t m = info.params.size() - maps; m < info.params.size(); ++m)
      if (Status s = checkTensorMap(info.params[m], args); !s.ok())
        return Status::error("kernel '" + l.kernel + "': " + s.message);
    for (size_t i = 0; i < args.size(); ++i) {
      const KernelArg &a = args[i];
      const ParamInfo &p = info.params[i];
      bool buffer = a.kind == KernelArg::Kind::Buffer ||
                    a.kind == KernelArg::Kind::Workspace;
      if (buffer != (p.kind == ParamInfo::Kind::MemRef) ||
          (buffer && (p.rank != static_cast<int64_t>(a.shape.size()) ||
                      p.dtype != a.dtype)))
        return Status::error("argument " + std::to_string(i) + " (" + a.name +
                             ") does not match parameter " + std::to_string(i) +
                             " of kernel '" + l.kernel + "'");
    }
    // Looked up once per kernel: a serving engine launches these
    // hundreds of times a step.
    auto known = functions.find(l.kernel);
    if (known == functions.end()) {
      Loaded k;
      if (Status s =
              check(cu.ModuleGetFunction(&k.fn, module, l.kernel.c_str()),
                    "cuModuleGetFunction(" + l.kernel + ")");
          !s.ok())
        return s;
      // Tiles kept on chip: above 48 KiB of static plus dynamic shared
      // memory a kernel must opt in. The kernel's own static bytes count too
      // (the register-tile kernels declare one), so opt in for any dynamic
      // amount.
      k.sharedBytes = static_cast<unsigned>(info.sharedBytesPerBlock);
      // The driver only says "invalid argument"; name the limit and the cure.
      if (sharedBytesOptIn > 0 && int64_t(k.sharedBytes) > sharedBytesOptIn)
        return Status::error(
            "kernel " + l.kernel + " needs " + std::to_string(k.sharedBytes) +
            " bytes of shared memory a block; " + deviceName + " allows " +
            std::to_string(sharedBytesOptIn) +
            ": its tiles do not fit on chip (a smaller v-block, such as "
            "\"fused v-block=64\", holds fewer state rows a block)");
      if (k.sharedBytes > 0)
        if (Status s = check(
                cu.FuncSetAttribute(
                    k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    static_cast<int>(k.sharedBytes)),
                "reserving " + std::to_string(k.sharedBytes) +
                    " bytes of shared memory for " + l.kernel);
            !s.ok())
          return s;
      known = functions.emplace(l.kernel, k).first;
    }
    loaded.push_back(known->second);
    loaded.back().info = &info;
    scratchBytes = std::max(scratchBytes,
                            static_cast<size_t>(l.grid.size()) *
                                static_cast<size_t>(info.scratchBytesPerBlock));
  }
  return Status::success();
}

Status CudaRunner::Impl::launch(const std::vector<PlannedLaunch> &launches,
                                const std::vector<Loaded> &loaded,
                                void **params, CUstream stream) {
  for (size_t i = 0; i < launches.size(); ++i) {
    const Grid &g = launches[i].grid;
    if (g.size() == 0)
      continue;
    CUresult r = cu.LaunchKernel(loaded[i].fn, g.x, g.y, g.z,
                                 artifact->blockSize, 1, 1,
                                 loaded[i].sharedBytes, stream,
                                 params + loaded[i].paramsAt, nullptr);
    if (r != CUDA_SUCCESS) // the message only when it is needed
      return check(r, "cuLaunchKernel(" + launches[i].kernel + ")");
  }
  return Status::success();
}

Status CudaRunner::copyToHost(void *dst, const void *deviceSrc, size_t bytes,
                              void *stream) {
  Driver &cu = impl->cu;
  ScopedContext scope(cu, impl->context);
  // On the caller's stream, so that the producers' pending writes come
  // first (they are ordered before it, not before the legacy stream).
  CUstream s = static_cast<CUstream>(stream);
  if (Status st = impl->check(
          cu.MemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(deviceSrc),
                             bytes, s),
          "copying to the host (cuMemcpyDtoHAsync)");
      !st.ok())
    return st;
  return impl->check(cu.StreamSynchronize(s), "cuStreamSynchronize");
}

Status CudaRunner::zeros(size_t bytes, const void *&device) {
  Impl &I = *impl;
  ScopedContext scope(I.cu, I.context);
  if (bytes > I.zeros.bytes) {
    // Graphs captured earlier may hold the old block: retire it.
    if (I.zeros.at)
      I.retired.push_back(I.zeros.at);
    I.zeros = {};
    CUdeviceptr at = 0;
    if (Status s = I.check(I.cu.MemAlloc(&at, bytes), "cuMemAlloc"); !s.ok())
      return s;
    if (Status s = I.check(I.cu.MemsetD8(at, 0, bytes), "cuMemsetD8");
        !s.ok()) {
      I.cu.MemFree(at);
      return s;
    }
    I.zeros = {at, bytes};
  }
  device = reinterpret_cast<const void *>(I.zeros.at);
  return Status::success();
}

Status CudaRunner::launchOnDevice(const std::vector<PlannedLaunch> &launches,
                                  const std::vector<KernelArg> &args, void *stream) {
  Impl &I = *impl;
  Driver &cu = I.cu;
  ScopedContext scope(cu, I.context);
  CUstream s = static_cast<CUstream>(stream);
  std::vector<Impl::Loaded> loaded;
  size_t scratchBytes = 0;
  if (Status st = I.resolveKernels(launches, args, loaded, scratchBytes);
      !st.ok())
    return st;
  // Checked before anything runs (LoadStoreOpToNVVM vectorises rows).
  for (const KernelArg &a : args)
    if (a.kind == KernelArg::Kind::Buffer && a.elements() > 0)
      if (Status st = checkDeviceAlignment(a.name, a.data); !st.ok())
        return st;
  // Workspaces and scratch share one block, each 256-byte aligned.
  auto aligned = [](size_t n) { return (n + 255) / 256 * 256; };
  std::vector<size_t> offsets(args.size(), 0);
  size_t need = 0;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].kind == KernelArg::Kind::Workspace) {
      offsets[i] = need;
      need += aligned(static_cast<size_t>(args[i].elements()) *
                      elementSize(args[i].dtype));
    }
  const size_t scratchAt = need;
  need += aligned(std::max<size_t>(scratchBytes, 256));

  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (Status st = I.check(cu.StreamIsCapturing(s, &capture),
                          "cuStreamIsCapturing");
      !st.ok())
    return st;
  const bool capturing = capture == CU_STREAM_CAPTURE_STATUS_ACTIVE;
  CUdeviceptr block = 0;
  if (capturing) {
    // A captured call gets its own workspace, allocated and freed by the
    // graph itself (stream-ordered allocation nodes): replays never share
    // it with eager calls or other graphs.
    if (Status st = I.check(cu.MemAllocAsync(&block, need, s),
                            "cuMemAllocAsync(" + std::to_string(need) +
                                " bytes of workspace: " +
                                describeWorkspaces(args) +
                                ") in a graph capture");
        !st.ok())
      return st;
  } else {
    Impl::Block &arena = I.arenas[s];
    if (need > arena.bytes) {
      if (arena.at)
        I.retired.push_back(arena.at);
      arena = {};
      CUdeviceptr at = 0;
      if (Status st = I.check(cu.MemAlloc(&at, need),
                              "cuMemAlloc(" + std::to_string(need) +
                                  " bytes of workspace: " +
                                  describeWorkspaces(args) + ")");
          !st.ok())
        return st;
      arena = {at, need};
    }
    block = arena.at;
  }
  std::vector<int64_t> words;
  std::vector<void *> params;
  Status launched = I.packParams(
      args,
      [&](size_t i) -> CUdeviceptr {
        return args[i].kind == KernelArg::Kind::Workspace
                   ? block + offsets[i]
                   : reinterpret_cast<CUdeviceptr>(args[i].data);
      },
      block + scratchAt, scratchBytes, loaded, words, params);
  if (launched.ok())
    launched = I.launch(launches, loaded, params.data(), s);
  if (capturing)
    if (Status st = I.check(cu.MemFreeAsync(block, s),
                            "cuMemFreeAsync in a graph capture");
        !st.ok() && launched.ok())
      return st;
  return launched;
}
