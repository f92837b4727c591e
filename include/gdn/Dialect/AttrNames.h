//===- AttrNames.h - discardable attributes of the gdn compiler -*- C++ -*-===//
//
// The one list of the `gdn.*` discardable attributes the passes put on
// functions, kernels and arguments, and the compiler reads back. Each name
// is written here once; code refers to the constant. MLIR-free but for
// llvm::StringLiteral.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_ATTRNAMES_H
#define GDN_DIALECT_ATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::gdn::attrs {

// Written by the kernel author on an entry and its arguments; read by
// gdn-specialize-entries.
/// Entry attribute: the flag sets to make bound copies for.
inline constexpr llvm::StringLiteral kSpecialize = "gdn.specialize";
/// Argument attribute: the flag name an index / i1 argument answers to.
inline constexpr llvm::StringLiteral kFlag = "gdn.flag";

// Written by gdn-specialize-entries on a bound copy.
/// The entry the copy was made from.
inline constexpr llvm::StringLiteral kSpecializedFrom = "gdn.specialized_from";
/// The values bound to the entry's flag arguments (-1: not bound).
inline constexpr llvm::StringLiteral kBoundArgs = "gdn.bound_args";

// Written by gdn-schedule on each kernel: its launch plan (read by
// lib/Compiler/LaunchPlans.cpp into gdn::LaunchPlan).
/// The entry a kernel belongs to.
inline constexpr llvm::StringLiteral kEntry = "gdn.entry";
/// The kernel's position in its entry's launch order.
inline constexpr llvm::StringLiteral kStep = "gdn.step";
/// What the grid's z axis counts (one, chunks, segments).
inline constexpr llvm::StringLiteral kGridZ = "gdn.grid_z";
/// The schedule text the kernel was made under.
inline constexpr llvm::StringLiteral kSchedule = "gdn.schedule";
/// split-seq: chunks per segment.
inline constexpr llvm::StringLiteral kSegmentChunks = "gdn.segment_chunks";
/// split-seq: a program's extra chunk goes to segment 0.
inline constexpr llvm::StringLiteral kExtraChunkInSegmentZero =
    "gdn.extra_chunk_in_segment_zero";
/// split-seq first-segment=run: segment 0's own length.
inline constexpr llvm::StringLiteral kFirstSegmentChunks =
    "gdn.first_segment_chunks";
/// Schedule knob prefetch=none: the kernel gets no next-chunk prefetch.
inline constexpr llvm::StringLiteral kNoPrefetch = "gdn.no_prefetch";
/// The schedule's `stages=N` (N >= 2) on a kernel: its chunk loops load
/// their 16-bit token tiles by TMA through an N-slot ring
/// (gdn-gpu-pipeline-loads).
inline constexpr llvm::StringLiteral kLoadStages = "gdn.load_stages";
/// Argument attribute: a workspace between kernels, and its slot count.
inline constexpr llvm::StringLiteral kWorkspace = "gdn.workspace";
/// "heads" on a kernel whose grid x is the value heads, not the programs
/// of a V-split (staged prepare-per=head's prepare kernel), and as an
/// argument attribute on a workspace indexed by value head. Absent: the
/// programs.
inline constexpr llvm::StringLiteral kGridX = "gdn.grid_x";

// Written by the GPU back end on each gpu.func kernel; read into the
// artifact's manifest.
/// Bytes of global scratch a block needs.
inline constexpr llvm::StringLiteral kScratchBytesPerBlock =
    "gdn.scratch_bytes_per_block";
/// Bytes of dynamic shared memory a block needs.
inline constexpr llvm::StringLiteral kSharedBytesPerBlock =
    "gdn.shared_bytes_per_block";
/// The kernel's trailing `!llvm.ptr` parameters, CUtensorMaps the runtime
/// encodes per launch: one dictionary each, in order, {source = i64 (the
/// driver argument, a memref, it describes), box = array<i64> (box size per
/// dimension, innermost first), swizzle = i64 (128 or 0 bytes)}.
inline constexpr llvm::StringLiteral kTensorMaps = "gdn.tensor_maps";

} // namespace mlir::gdn::attrs

#endif // GDN_DIALECT_ATTRNAMES_H
