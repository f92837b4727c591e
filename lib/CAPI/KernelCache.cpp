//===- KernelCache.cpp - GPU artifacts compiled on first use --------------===//

#include "KernelCache.h"

#include "gdn/Runtime/Artifact.h"

#ifdef GDN_WITH_MLIR
#include "gdn/Compiler/KernelCompiler.h"
#endif

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace gdn;
using namespace gdn::capi;

namespace fs = std::filesystem;

namespace {

/// FNV-1a, 64 bits: a stable hash (std::hash is not across builds).
struct Fnv {
  uint64_t h = 1469598103934665603ull;
  Fnv &add(const std::string &s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff; // separator
    h *= 1099511628211ull;
    return *this;
  }
  std::string hex() const {
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx",
                  static_cast<unsigned long long>(h));
    return buf;
  }
};

/// This build of the library: its path, size and modification time. The
/// compiler is linked into it, so a rebuilt compiler is a new key.
std::string libraryIdentity() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&libraryIdentity), &info) ||
      !info.dli_fname)
    return "unknown";
  struct stat st;
  if (::stat(info.dli_fname, &st) != 0)
    return info.dli_fname;
  return std::string(info.dli_fname) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(static_cast<long long>(st.st_mtime));
}

} // namespace

std::string capi::cacheRoot(const gdn_context &context) {
  if (!context.cacheDir.empty())
    return context.cacheDir;
  if (const char *env = std::getenv("GDN_CACHE_DIR"); env && *env)
    return env;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/gdn";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/gdn";
  return "/tmp/gdn-cache";
}

Status capi::cachedArtifact(const gdn_context &context,
                            const KernelShape &shape,
                            const mlir::gdn::ScheduleOptions &schedule,
                            std::string &dir) {
#ifdef GDN_WITH_MLIR
  std::ifstream in(context.kernelPath, std::ios::binary);
  if (!in)
    return Status::error("cannot read kernel file '" + context.kernelPath +
                         "'");
  std::stringstream source;
  source << in.rdbuf();
  // The code generator's defaults: what gdn-run --emit artifact builds.
  const mlir::gdn::GPUCodegenOptions codegen;
  Fnv key;
  key.add(source.str())
      .add(schedule.str()) // the schedule's content, not its file name
      .add(std::to_string(shape.K))
      .add(std::to_string(shape.V))
      .add(dtypeName(shape.io))
      .add(shape.state == DType::F32 ? "" : dtypeName(shape.state))
      .add(codegen.cacheKey())
      .add(libraryIdentity());
  dir = cacheRoot(context) + "/" + key.hex();
  std::error_code ec;
  if (fs::exists(dir + "/manifest.json", ec))
    return Status::success();

  CompileOptions options;
  options.kernelPath = context.kernelPath;
  options.schedule = schedule;
  options.shape = shape;
  options.gpu = codegen;
  Artifact artifact;
  if (Status s = compileForGPU(options, artifact); !s.ok())
    return s;
  // Written aside and renamed into place, so that a reader never sees half
  // an artifact and two processes compiling the same key both succeed.
  fs::create_directories(cacheRoot(context), ec);
  // Unique per process and per fill within it (contexts fill in parallel).
  static std::atomic<unsigned> fills{0};
  std::string tmp = dir + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(fills++);
  if (Status s = writeArtifact(tmp, artifact); !s.ok())
    return Status::error("kernel cache '" + cacheRoot(context) +
                         "': " + s.message);
  fs::rename(tmp, dir, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    if (!fs::exists(dir + "/manifest.json", ignored))
      return Status::error("kernel cache: cannot move the artifact into '" +
                           dir + "'");
  }
  return Status::success();
#else
  (void)context;
  (void)shape;
  (void)schedule;
  dir.clear();
  return Status::error(
      "device tensors need kernels compiled ahead of time: this gdn library "
      "was built without LLVM / MLIR and cannot compile them; give the "
      "context an artifacts directory (artifacts_dir; the Python package "
      "reads GDN_ARTIFACTS), built with `gdn-run --emit artifact` or `make "
      "artifacts`");
#endif
}
