//===- KernelCache.h - GPU artifacts compiled on first use ------*- C++ -*-===//
//
// Where the library can compile (a build with MLIR), device calls without
// an artifacts directory compile their kernels on first use and keep them
// on disk, like Triton's cache: one artifact directory per key, the key a
// hash of everything the PTX depends on (the kernel file's text, the
// schedule, the shape, the code generator's options and this build of the
// library). The directory is the context's cache_dir, else $GDN_CACHE_DIR,
// else ~/.cache/gdn.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_CAPI_KERNELCACHE_H
#define GDN_CAPI_KERNELCACHE_H

#include "Context.h"

#include <string>

namespace gdn::capi {

/// The directory of the artifact for `shape` under the concrete `schedule`
/// in the context's cache, compiled and written there first if missing.
Status cachedArtifact(const gdn_context &context, const KernelShape &shape,
                      const mlir::gdn::ScheduleOptions &schedule,
                      std::string &dir);

/// The cache directory a context uses.
std::string cacheRoot(const gdn_context &context);

} // namespace gdn::capi

#endif // GDN_CAPI_KERNELCACHE_H
