//===- Artifact.h - compiled GPU kernels and their manifest -----*- C++ -*-===//
//
// What the compiler hands to a GPU host that has no LLVM / MLIR: the PTX
// and a small JSON manifest (kernel names, parameters, launch geometry,
// scratch memory, the shape and flags it was compiled for). MLIR-free.
//
// A directory holds `manifest.json` and the PTX file it names.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_ARTIFACT_H
#define GDN_RUNTIME_ARTIFACT_H

#include "gdn/Runtime/KernelArgs.h"
#include "gdn/Runtime/LaunchPlan.h"
#include "gdn/TensorIO/Status.h"

#include <map>
#include <string>
#include <vector>

namespace gdn {

/// One kernel parameter as the driver passes it. Memrefs travel expanded as
/// MLIR's GPU lowering expects: allocated and aligned pointers, offset,
/// sizes, strides. A TensorMap is a 128-byte CUtensorMap passed by value
/// (`.param .align 64 .b8 [128]`), encoded by the runtime per launch over
/// the driver argument `source`.
struct ParamInfo {
  enum class Kind { MemRef, Index, F32, I1, Scratch, TensorMap };
  Kind kind = Kind::Index;
  int64_t rank = 0;        // MemRef
  DType dtype = DType::F32; // MemRef element type
  int64_t source = 0;       // TensorMap: index of the memref it describes
  std::vector<int64_t> box; // TensorMap: box per dimension, innermost first
  int64_t swizzle = 0;      // TensorMap: 128 (bytes) or 0
};

struct KernelInfo {
  // In order: the driver's arguments, Scratch, then the tensor maps.
  std::vector<ParamInfo> params;
  int64_t scratchBytesPerBlock = 0;
  int64_t sharedBytesPerBlock = 0; // dynamic shared memory at launch

  /// The trailing TensorMap parameters.
  size_t tensorMaps() const {
    size_t n = 0;
    while (n < params.size() &&
           params[params.size() - 1 - n].kind == ParamInfo::Kind::TensorMap)
      ++n;
    return n;
  }
};

struct Artifact {
  // 2: shape.v_block (a V-split launches V / v_block programs per head). A
  // runtime that knew only format 1 would launch too few; it refuses 2.
  static constexpr const char *kFormat = "gdn-artifact-2";
  static constexpr const char *kFormatWithoutVSplit = "gdn-artifact-1";
  // 3: written only when a plan has first_segment_chunks (split-seq
  // first-segment=run). A runtime that ignored the key would launch a
  // segment too few, leaving chunks unrun; a format-2 runtime refuses 3.
  static constexpr const char *kFormatFirstSegment = "gdn-artifact-3";
  // 4: written only when a kernel takes tensor maps (parameters a format-3
  // runtime cannot encode); it refuses 4 as too new, not as malformed.
  static constexpr const char *kFormatTensorMaps = "gdn-artifact-4";
  // 5: written only when a plan has a kernel or a workspace per value head
  // (staged prepare-per=head): a format-4 runtime would launch that kernel
  // over every program of a V-split, indexing heads past the last.
  static constexpr const char *kFormatPerHead = "gdn-artifact-5";
  // 6: written only when a workspace spans the call's chunk slots
  // (`call-chunks`, from gdn.chunk_scan's `slots from`); a format-5
  // runtime refuses 6 as too new instead of the slot axis as malformed.
  static constexpr const char *kFormatCallChunks = "gdn-artifact-6";
  std::string chip = "sm_90a";
  int64_t blockSize = 256;
  KernelShape shape;
  std::string source;              // the kernel file it was compiled from
  std::map<std::string, KernelInfo> kernels;
  std::map<std::string, LaunchPlan> plans; // by entry (gdn_pool, ...)
  std::string ptx;

  /// The plan of `entry`: its schedule's kernels, or the entry alone.
  LaunchPlan planFor(const std::string &entry) const {
    auto it = plans.find(entry);
    if (it != plans.end())
      return it->second;
    LaunchPlan single = LaunchPlan::single(entry);
    single.programsPerHead = shape.programsPerHead();
    return single;
  }
  /// The entry a call of `entry` runs: a flag-bound copy when one matches.
  std::string entryFor(const std::string &entry,
                       const std::vector<KernelArg> &args) const {
    return pickEntry(plans, entry, args);
  }

  /// The directory a shape's artifact lives in under a root:
  /// k<K>_v<V>_<dtype>, e.g. k128_v128_bf16.
  static std::string subdirFor(const KernelShape &shape);
};

/// What a call on an artifact launches: the entry it runs (a flag-bound
/// copy where one matches the arguments), that entry's plan, each kernel's
/// grid and the workspaces between them.
struct ArtifactLaunch {
  std::string entry;
  LaunchPlan plan;
  std::vector<PlannedLaunch> launches;
  std::vector<KernelArg> workspaces;
};
/// The GPU launch flow, shared by the C API and gdn-run: `programs` is the
/// call's [HV, B, 1] (the plan adds its V-split), `slots` its chunk slots.
Status planArtifactCall(const Artifact &artifact, const std::string &entry,
                        const std::vector<KernelArg> &args, Grid programs,
                        ChunkSlots slots, ArtifactLaunch &launch);

Status writeArtifact(const std::string &dir, const Artifact &artifact);
Status readArtifact(const std::string &dir, Artifact &artifact);

/// An auto artifact set (`gdn-run --emit artifact --schedule auto`): one
/// artifact per schedule `--schedule auto` may pick, each in a subdirectory
/// named after it, and `auto.json` listing them (name -> schedule text).
/// The runtime picks one per call (gdn/Driver/AutoSchedule.h).
Status writeAutoSetIndex(
    const std::string &dir,
    const std::vector<std::pair<std::string, std::string>> &candidates);
/// Whether `dir` holds an auto set (its `auto.json`).
bool isAutoSet(const std::string &dir);
/// The candidates an auto set's index lists: name -> schedule text.
Status readAutoSetIndex(const std::string &dir,
                        std::map<std::string, std::string> &candidates);

/// Where the artifact for `shape` lives under `root`: `root` itself when it
/// is an artifact or an auto set, else its subdirectory for the shape
/// (Artifact::subdirFor). `autoSet` says whether `dir` is an auto set.
void locateArtifact(const std::string &root, const KernelShape &shape,
                    std::string &dir, bool &autoSet);
/// The member of auto set `dir` that `--schedule auto` picked (candidate
/// `name` with schedule text `schedule`); refuses a set that lacks it.
Status pickFromAutoSet(const std::string &dir, const std::string &name,
                       const std::string &schedule, std::string &member);

} // namespace gdn

#endif // GDN_RUNTIME_ARTIFACT_H
