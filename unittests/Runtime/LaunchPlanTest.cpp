// Flag-bound entries (gdn-specialize-entries): which entry a call runs,
// and the bound arguments' trip through an artifact's manifest; split-seq's
// segment count.

#include "gdn/Runtime/Artifact.h"
#include "gdn/Runtime/LaunchPlan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <sstream>

#include <unistd.h>

using namespace gdn;

namespace {
LaunchPlan boundPlan(std::vector<int64_t> bound) {
  LaunchPlan plan = LaunchPlan::single("unused");
  plan.specializedFrom = "gdn_paged";
  plan.boundArgs = std::move(bound);
  return plan;
}

/// A paged call's trailing flags: gate_domain (index), beta_is_logit and
/// qk_l2norm (i1), after one buffer argument.
std::vector<KernelArg> call(int64_t domain, bool logit, bool l2norm) {
  return {KernelArg::buffer("q", nullptr, DType::BF16, {1}),
          KernelArg::indexValue("gate_domain", domain),
          KernelArg::i1Value("beta_is_logit", logit),
          KernelArg::i1Value("qk_l2norm", l2norm)};
}

std::map<std::string, LaunchPlan> pagedPlans() {
  return {{"gdn_paged", LaunchPlan::single("gdn_paged")},
          {"gdn_paged_s0", boundPlan({1, 0, 2, 1, 3, 1})},
          {"gdn_paged_s1", boundPlan({1, 1, 2, 0, 3, 1})},
          {"gdn_pool", LaunchPlan::single("gdn_pool")}};
}
} // namespace

TEST(PickEntry, MatchingFlagsRunTheBoundCopy) {
  auto plans = pagedPlans();
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(0, true, true)), "gdn_paged_s0");
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(1, false, true)), "gdn_paged_s1");
}

TEST(PickEntry, OtherFlagsRunTheEntry) {
  auto plans = pagedPlans();
  // One flag differs from each copy: the generic entry, with its branches.
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(0, true, false)), "gdn_paged");
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(2, false, true)), "gdn_paged");
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(1, true, true)), "gdn_paged");
  // Copies of one entry are never picked for another.
  EXPECT_EQ(pickEntry(plans, "gdn_pool", call(0, true, true)), "gdn_pool");
}

TEST(PickEntry, BoundArgumentsMustExistAndBeScalars) {
  std::map<std::string, LaunchPlan> plans = {
      {"past_end", boundPlan({9, 0})}, {"on_buffer", boundPlan({0, 0})}};
  EXPECT_EQ(pickEntry(plans, "gdn_paged", call(0, false, false)), "gdn_paged");
}

TEST(PickEntry, DescribesTheBoundFlagsByName) {
  EXPECT_EQ(describeBoundArgs(boundPlan({1, 0, 3, 1}), call(0, true, true)),
            "gate_domain=0 qk_l2norm=1");
  EXPECT_EQ(describeBoundArgs(LaunchPlan::single("x"), call(0, true, true)), "");
}

namespace {
/// `a` written as an artifact to a fresh directory, its manifest's text
/// passed through `edit`, and read back.
Status roundTrip(const Artifact &a, Artifact &back, const std::string &tag,
                 const std::function<void(std::string &)> &edit = {}) {
  const std::string dir =
      (std::filesystem::temp_directory_path() /
       ("gdn-" + tag + "-test-" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  Status s = writeArtifact(dir, a);
  if (s.ok() && edit) {
    std::stringstream text;
    text << std::ifstream(dir + "/manifest.json").rdbuf();
    std::string manifest = text.str();
    edit(manifest);
    std::ofstream(dir + "/manifest.json") << manifest;
  }
  if (s.ok())
    s = readArtifact(dir, back);
  std::filesystem::remove_all(dir);
  return s;
}
} // namespace

TEST(ArtifactManifest, KeepsBoundArguments) {
  Artifact a;
  a.ptx = "// ptx";
  a.kernels["gdn_paged_s1"] = KernelInfo{};
  LaunchPlan plan = boundPlan({1, 1, 2, 0, 3, 1});
  plan.steps = {{"gdn_paged_s1", SlotAxis::One}};
  a.plans["gdn_paged_s1"] = plan;
  Artifact back;
  Status s = roundTrip(a, back, "launchplan");
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(back.plans.count("gdn_paged_s1"), 1u);
  EXPECT_EQ(back.plans["gdn_paged_s1"].specializedFrom, "gdn_paged");
  EXPECT_EQ(back.plans["gdn_paged_s1"].boundArgs,
            (std::vector<int64_t>{1, 1, 2, 0, 3, 1}));
  EXPECT_EQ(back.entryFor("gdn_paged", call(1, false, true)), "gdn_paged_s1");
}

namespace {
/// split-seq's two kernels over segments, with `segment` chunks each.
/// `firstSegment` > 0: segment 0 has that many (first-segment=run).
LaunchPlan splitSeqPlan(int64_t segment, bool extraInSegmentZero = true,
                        int64_t firstSegment = 0) {
  LaunchPlan plan;
  plan.schedule = "split-seq";
  plan.segmentChunks = segment;
  plan.extraChunkInSegmentZero = extraInSegmentZero;
  plan.firstSegmentChunks = firstSegment;
  plan.steps = {{"k__transition", SlotAxis::Segments},
                {"k__replay", SlotAxis::Segments}};
  plan.workspaces = {{DType::F32, {}, SlotAxis::Segments},
                     {DType::BF16, {64, 128}, SlotAxis::Chunks}};
  return plan;
}

int64_t segmentsFor(int64_t segment, int64_t chunkSlots,
                    bool extraInSegmentZero = true, int64_t firstSegment = 0) {
  std::vector<PlannedLaunch> launches;
  std::vector<KernelArg> workspaces;
  EXPECT_TRUE(planCall(splitSeqPlan(segment, extraInSegmentZero, firstSegment),
                       Grid{32, 1, 1}, ChunkSlots{chunkSlots, 1}, launches,
                       workspaces)
                  .ok());
  EXPECT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].grid.z, launches[1].grid.z);
  EXPECT_EQ(workspaces.size(), 2u);
  EXPECT_EQ(workspaces[0].shape[2], launches[0].grid.z); // a slot a segment
  EXPECT_EQ(workspaces[1].shape[2], chunkSlots);
  return launches[0].grid.z;
}
} // namespace

// Segments cover the chunk slots but the last (ceil(tokens / 64) + 1 of
// them): a program's chunk past a multiple of the segment length runs in
// segment 0 (SplitSeqSchedule.cpp), not in a segment of its own.
TEST(PlanCall, SegmentsLeaveTheAlignmentSlotToSegmentZero) {
  EXPECT_EQ(segmentsFor(16, 65), 4);  // 1 x 4096: 4 x 32 blocks, one wave
  EXPECT_EQ(segmentsFor(64, 257), 4); // 1 x 16384
  EXPECT_EQ(segmentsFor(16, 66), 5);  // 65 chunks of new tokens need 5
  EXPECT_EQ(segmentsFor(7, 8), 1);
  EXPECT_EQ(segmentsFor(16, 1), 1);   // no chunks: one segment still
  EXPECT_EQ(segmentsFor(16, 2), 1);
  // One-chunk segments: one per slot.
  EXPECT_EQ(segmentsFor(1, 8), 8);
  EXPECT_EQ(segmentsFor(1, 1), 1);
}

// Artifacts built before the kernels took the extra chunk in segment 0
// say nothing of it and get a segment for every slot.
TEST(PlanCall, OlderArtifactsGetASegmentForTheLastSlot) {
  EXPECT_EQ(segmentsFor(16, 65, false), 5);
  EXPECT_EQ(segmentsFor(64, 257, false), 5);
  EXPECT_EQ(segmentsFor(7, 8, false), 2);
}

// first-segment=run first-segment-chunks=N: segment 0 has N chunks, the
// others segment-chunks; every slot is covered (no extra-chunk mark).
TEST(PlanCall, FirstSegmentOfItsOwnLength) {
  EXPECT_EQ(segmentsFor(14, 65, false, 13), 5);  // 1 x 4096: 13 + 3 x 14 + 10
  EXPECT_EQ(segmentsFor(58, 257, false, 50), 5); // 1 x 16384: 50 + 3 x 58 + 33
  EXPECT_EQ(segmentsFor(14, 13, false, 13), 1);  // all in segment 0
  EXPECT_EQ(segmentsFor(14, 14, false, 13), 2);
  EXPECT_EQ(segmentsFor(14, 27, false, 13), 2);
  EXPECT_EQ(segmentsFor(14, 28, false, 13), 3);
  EXPECT_EQ(segmentsFor(2, 1, false, 3), 1);     // no chunks
  EXPECT_EQ(segmentsFor(2, 10, false, 3), 5);    // 3 + 2 + 2 + 2 + 1
}

TEST(ArtifactManifest, KeepsTheFirstSegmentLength) {
  Artifact a;
  a.ptx = "// ptx";
  a.kernels["k__transition"] = KernelInfo{};
  a.kernels["k__replay"] = KernelInfo{};
  a.plans["k"] = splitSeqPlan(14, false, 13);
  a.plans["old"] = splitSeqPlan(16);
  Artifact back;
  Status s = roundTrip(a, back, "first-segment");
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(back.plans.at("k").firstSegmentChunks, 13);
  EXPECT_EQ(back.plans.at("k").segmentChunks, 14);
  EXPECT_EQ(back.plans.at("old").firstSegmentChunks, 0);
}

// A plan has a first segment of its own length or the extra chunk in
// segment 0, not both; and only kernels over segments have a segment 0.
TEST(PlanCall, RefusesBothSegmentZeroRules) {
  std::vector<PlannedLaunch> launches;
  std::vector<KernelArg> workspaces;
  Status s = planCall(splitSeqPlan(14, true, 13), Grid{32, 1, 1}, ChunkSlots{65, 1},
                      launches, workspaces);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("one or the other"), std::string::npos) << s.message;
}

TEST(ArtifactManifest, RefusesAFirstSegmentItCannotHonour) {
  Artifact a;
  a.ptx = "// ptx";
  a.kernels["k__transition"] = KernelInfo{};
  a.kernels["k__replay"] = KernelInfo{};
  a.plans["k"] = splitSeqPlan(14, true, 13);
  Artifact back;
  Status s = roundTrip(a, back, "both-rules");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("both first_segment_chunks and "
                           "extra_chunk_in_segment_zero"),
            std::string::npos)
      << s.message;
  LaunchPlan fused = LaunchPlan::single("k");
  fused.firstSegmentChunks = 13;
  a.kernels["k"] = KernelInfo{};
  a.plans["k"] = fused;
  s = roundTrip(a, back, "no-segments");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("no kernel over segments"), std::string::npos)
      << s.message;
}

TEST(ArtifactManifest, KeepsTheSegmentZeroMark) {
  Artifact a;
  a.ptx = "// ptx";
  a.kernels["k__transition"] = KernelInfo{};
  a.kernels["k__replay"] = KernelInfo{};
  a.plans["k"] = splitSeqPlan(16);
  a.plans["old"] = splitSeqPlan(16, false);
  Artifact back;
  Status s = roundTrip(a, back, "segment-zero");
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_TRUE(back.plans.at("k").extraChunkInSegmentZero);
  EXPECT_FALSE(back.plans.at("old").extraChunkInSegmentZero);
}

// The plan carries the V-split: planCall launches V / v_block programs per
// value head, and the workspaces have a row per program.
TEST(PlanCall, TheVSplitComesFromThePlan) {
  LaunchPlan plan = splitSeqPlan(16);
  plan.programsPerHead = 2;
  std::vector<PlannedLaunch> launches;
  std::vector<KernelArg> workspaces;
  ASSERT_TRUE(planCall(plan, Grid{32, 3, 1}, ChunkSlots{65, 1}, launches, workspaces).ok());
  for (const PlannedLaunch &l : launches) {
    EXPECT_EQ(l.grid.x, 64);
    EXPECT_EQ(l.grid.y, 3);
  }
  for (const KernelArg &w : workspaces)
    EXPECT_EQ(w.shape[0], 64);
  plan.programsPerHead = 0;
  Status s = planCall(plan, Grid{32, 3, 1}, ChunkSlots{65, 1}, launches, workspaces);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("programs per head"), std::string::npos)
      << s.message;
}

TEST(ArtifactManifest, KeepsTheVSplitAndChecksItAgainstTheShape) {
  Artifact a;
  a.ptx = "// ptx";
  a.shape.K = a.shape.V = 128;
  a.shape.vBlock = 64;
  a.kernels["k"] = KernelInfo{};
  LaunchPlan plan = LaunchPlan::single("k");
  plan.programsPerHead = 2;
  a.plans["k"] = plan;
  Artifact back;
  Status s = roundTrip(a, back, "v-split");
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(back.plans.at("k").programsPerHead, 2);
  // An entry without a plan gets the shape's.
  EXPECT_EQ(back.planFor("unplanned").programsPerHead, 2);

  a.plans["k"].programsPerHead = 4; // disagrees with v_block 64 of V 128
  s = roundTrip(a, back, "v-split-bad");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("programs_per_head 4"), std::string::npos)
      << s.message;
}

namespace {
/// staged prepare-per=head's plan: a prepare kernel over value heads and
/// chunk slots with two workspaces per head, then a serial kernel over
/// the programs of a V-split of two.
LaunchPlan perHeadPlan() {
  LaunchPlan plan;
  plan.schedule = "staged intermediates=bf16 output=with-state store=solve "
                  "prepare-per=head v-block=64";
  plan.programsPerHead = 2;
  plan.steps = {{"k__prepare", SlotAxis::Chunks, /*perHead=*/true},
                {"k__state", SlotAxis::One}};
  plan.workspaces = {{DType::BF16, {64, 128}, SlotAxis::Chunks, true},
                     {DType::BF16, {64, 64}, SlotAxis::Chunks, true}};
  return plan;
}
} // namespace

// A kernel per head runs one program a value head; a workspace per head
// has a row a head, which the head's programs share.
TEST(PlanCall, KernelsAndWorkspacesPerHead) {
  LaunchPlan plan = perHeadPlan();
  plan.workspaces.push_back({DType::F32, {}, SlotAxis::Chunks, false});
  std::vector<PlannedLaunch> launches;
  std::vector<KernelArg> workspaces;
  ASSERT_TRUE(planCall(plan, Grid{32, 3, 1}, ChunkSlots{65, 1}, launches, workspaces).ok());
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].grid.x, 32);
  EXPECT_EQ(launches[0].grid.z, 65);
  EXPECT_EQ(launches[1].grid.x, 64);
  ASSERT_EQ(workspaces.size(), 3u);
  EXPECT_EQ(workspaces[0].shape, (std::vector<int64_t>{32, 3, 65, 64, 128}));
  EXPECT_EQ(workspaces[1].shape, (std::vector<int64_t>{32, 3, 65, 64, 64}));
  EXPECT_EQ(workspaces[2].shape, (std::vector<int64_t>{64, 3, 65}));
  EXPECT_NE(workspaces[0].name.find("per head"), std::string::npos)
      << workspaces[0].name;
}

// A workspace over the call's chunks (gdn.chunk_scan's `slots from`) has one
// row of grid y and the call's slots: at 8 sequences of 4096 tokens whose
// lengths are not read, 529 slots instead of 8 x 4097 / 64.
TEST(PlanCall, WorkspacesOverTheCallsChunks) {
  ChunkSlots slots = chunkSlotsFor(/*longestTokens=*/32768, /*tokens=*/32768,
                                   /*sequences=*/8, /*chunk=*/64);
  EXPECT_EQ(slots.longest, 513);
  EXPECT_EQ(slots.call, 512 + 16 + 1);
  LaunchPlan plan = perHeadPlan();
  for (WorkspaceSpec &w : plan.workspaces)
    w.slots = SlotAxis::CallChunks;
  plan.workspaces.push_back({DType::F32, {}, SlotAxis::Chunks, false});
  std::vector<PlannedLaunch> launches;
  std::vector<KernelArg> workspaces;
  ASSERT_TRUE(planCall(plan, Grid{32, 8, 1}, slots, launches, workspaces).ok());
  EXPECT_EQ(launches[0].grid.z, 513); // the prepare kernel's chunks
  ASSERT_EQ(workspaces.size(), 3u);
  EXPECT_EQ(workspaces[0].shape, (std::vector<int64_t>{32, 1, 529, 64, 128}));
  EXPECT_EQ(workspaces[2].shape, (std::vector<int64_t>{64, 8, 513}));
  EXPECT_NE(workspaces[0].name.find("call-chunks"), std::string::npos)
      << workspaces[0].name;
  // No kernel's grid walks the call's chunks.
  plan.steps[0].gridZ = SlotAxis::CallChunks;
  Status s = planCall(plan, Grid{32, 8, 1}, slots, launches, workspaces);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("cannot walk the call's chunks"), std::string::npos)
      << s.message;
}

namespace {
/// An artifact whose entry "k" has perHeadPlan()'s kernels and plan.
Artifact perHeadArtifact() {
  Artifact a;
  a.ptx = "// ptx";
  a.shape.K = a.shape.V = 128;
  a.shape.vBlock = 64;
  a.kernels["k__prepare"] = KernelInfo{};
  a.kernels["k__state"] = KernelInfo{};
  a.plans["k"] = perHeadPlan();
  return a;
}
} // namespace

// Marks per head survive the manifest, whose format is then 5: a format-4
// runtime would launch the prepare kernel over every program.
TEST(ArtifactManifest, KeepsKernelsAndWorkspacesPerHead) {
  Artifact a = perHeadArtifact();
  Artifact back;
  std::string manifest;
  Status s = roundTrip(a, back, "per-head",
                       [&](std::string &text) { manifest = text; });
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_NE(manifest.find("\"format\": \"gdn-artifact-5\""), std::string::npos)
      << manifest;
  EXPECT_STREQ(Artifact::kFormatPerHead, "gdn-artifact-5");
  const LaunchPlan &plan = back.plans.at("k");
  ASSERT_EQ(plan.steps.size(), 2u);
  EXPECT_TRUE(plan.steps[0].perHead);
  EXPECT_FALSE(plan.steps[1].perHead);
  ASSERT_EQ(plan.workspaces.size(), 2u);
  EXPECT_TRUE(plan.workspaces[0].perHead);
  EXPECT_TRUE(plan.hasPerHead());
  EXPECT_FALSE(LaunchPlan::single("k").hasPerHead());

  s = roundTrip(a, back, "per-head-bad", [&](std::string &text) {
    const std::string mark = "\"grid_x\": \"heads\"";
    size_t at = text.find(mark);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, mark.size(), "\"grid_x\": \"rows\"");
  });
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("grid_x"), std::string::npos) << s.message;
}

// Workspaces over the call's chunks survive the manifest, whose format is
// then 6; a runtime that reads up to 5 would refuse the slot axis.
TEST(ArtifactManifest, KeepsWorkspacesOverTheCallsChunks) {
  Artifact a = perHeadArtifact();
  a.plans["k"].workspaces[1].slots = SlotAxis::CallChunks;
  Artifact back;
  std::string manifest;
  Status s = roundTrip(a, back, "call-chunks",
                       [&](std::string &text) { manifest = text; });
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_NE(manifest.find("\"format\": \"gdn-artifact-6\""), std::string::npos)
      << manifest;
  EXPECT_NE(manifest.find("\"slots\": \"call-chunks\""), std::string::npos)
      << manifest;
  const LaunchPlan &plan = back.plans.at("k");
  ASSERT_EQ(plan.workspaces.size(), 2u);
  EXPECT_EQ(plan.workspaces[0].slots, SlotAxis::Chunks);
  EXPECT_EQ(plan.workspaces[1].slots, SlotAxis::CallChunks);
  EXPECT_TRUE(plan.hasCallChunks());
  EXPECT_FALSE(perHeadPlan().hasCallChunks());
}

namespace {
/// Writes `a`, replaces `from` in its manifest text by `to`, reads it back.
Status readEdited(const Artifact &a, const std::string &from,
                  const std::string &to) {
  Artifact back;
  return roundTrip(a, back, "edited", [&](std::string &manifest) {
    size_t at = manifest.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos)
      manifest.replace(at, from.size(), to);
  });
}
} // namespace

// The manifest's schema is checked on load; a refusal names the key.
TEST(ArtifactManifest, RefusalsNameTheKey) {
  Artifact a;
  a.ptx = "// ptx";
  a.shape.K = a.shape.V = 128;
  a.kernels["k"] = KernelInfo{};
  a.plans["k"] = LaunchPlan::single("k");
  ASSERT_TRUE(readEdited(a, "\"chip\"", "\"chip\"").ok());
  const std::pair<std::string, std::string> edits[] = {
      {"\"block_size\": 256", "\"block_size\": \"256\""},
      {"\"K\": 128", "\"K\": -1"},
      {"\"io\": \"BF16\"", "\"io\": \"INT4\""},
      {"\"scratch_bytes_per_block\"", "\"scratch\""},
      {"\"segment_chunks\"", "\"segments\""},
      {"\"format\": \"gdn-artifact-2\"", "\"format\": \"gdn-artifact-9\""},
  };
  const char *named[] = {"'block_size'", "'shape.K'", "'shape.io'",
                         "'kernels.k.scratch_bytes_per_block'",
                         "'plans.k.segment_chunks'", "gdn-artifact-9"};
  for (size_t i = 0; i < std::size(edits); ++i) {
    Status s = readEdited(a, edits[i].first, edits[i].second);
    EXPECT_FALSE(s.ok()) << edits[i].second;
    EXPECT_NE(s.message.find(named[i]), std::string::npos) << s.message;
  }
}

// A 16-bit state pool has kernels of their own: the manifest keeps the
// pool's dtype (older manifests, without it, are fp32 pools), the artifact
// directory's name says it, and an artifact for one pool dtype does not
// serve another.
TEST(ArtifactManifest, KeepsTheStateDtype) {
  Artifact a;
  a.ptx = "// ptx";
  a.shape.K = a.shape.V = 128;
  a.shape.state = DType::BF16;
  a.kernels["k"] = KernelInfo{};
  a.plans["k"] = LaunchPlan::single("k");
  Artifact back;
  Status s = roundTrip(a, back, "state-bf16");
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(back.shape.state, DType::BF16);
  EXPECT_EQ(Artifact::subdirFor(back.shape), "k128_v128_bf16_state_bf16");
  KernelShape fp32 = back.shape;
  fp32.state = DType::F32;
  EXPECT_FALSE(back.shape.sameKernel(fp32));
  EXPECT_EQ(Artifact::subdirFor(fp32), "k128_v128_bf16");

  a.shape.state = DType::F32;
  s = roundTrip(a, back, "state-absent", [](std::string &manifest) {
    size_t at = manifest.find("\"state\": \"F32\",");
    if (at != std::string::npos)
      manifest.erase(at, std::string("\"state\": \"F32\",").size());
  });
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(back.shape.state, DType::F32);
  s = readEdited(a, "\"state\": \"F32\"", "\"state\": \"I32\"");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("'shape.state'"), std::string::npos) << s.message;
}

namespace {
/// A kernel over q (bf16 [B, T, H, K]) and a flag, its scratch, and a TMA
/// tensor map over q.
KernelInfo tensorMapKernel() {
  KernelInfo k;
  ParamInfo q;
  q.kind = ParamInfo::Kind::MemRef;
  q.rank = 4;
  q.dtype = DType::BF16;
  ParamInfo flag;
  flag.kind = ParamInfo::Kind::Index;
  ParamInfo scratch;
  scratch.kind = ParamInfo::Kind::Scratch;
  scratch.rank = 1;
  ParamInfo map;
  map.kind = ParamInfo::Kind::TensorMap;
  map.source = 0;
  map.box = {64, 1, 64, 1};
  map.swizzle = 128;
  k.params = {q, flag, scratch, map};
  return k;
}
} // namespace

// Tensor-map parameters keep their source, box and swizzle; an artifact
// with any is format 4 (older runtimes refuse it), others stay 2.
TEST(ArtifactManifest, KeepsTensorMaps) {
  Artifact a;
  a.ptx = "// ptx";
  a.kernels["k"] = tensorMapKernel();
  a.kernels["plain"] = KernelInfo{};
  a.plans["k"] = LaunchPlan::single("k");
  Artifact back;
  std::string manifest;
  Status s = roundTrip(a, back, "tensor-maps",
                       [&](std::string &text) { manifest = text; });
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_NE(manifest.find("\"format\": \"gdn-artifact-4\""), std::string::npos)
      << manifest;
  EXPECT_NE(manifest.find("\"kind\": \"tensor_map\""), std::string::npos);
  EXPECT_STREQ(Artifact::kFormatTensorMaps, "gdn-artifact-4");
  const KernelInfo &k = back.kernels.at("k");
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.tensorMaps(), 1u);
  EXPECT_EQ(back.kernels.at("plain").tensorMaps(), 0u);
  const ParamInfo &map = k.params[3];
  EXPECT_EQ(map.kind, ParamInfo::Kind::TensorMap);
  EXPECT_EQ(map.source, 0);
  EXPECT_EQ(map.box, (std::vector<int64_t>{64, 1, 64, 1}));
  EXPECT_EQ(map.swizzle, 128);
  EXPECT_EQ(k.params[2].kind, ParamInfo::Kind::Scratch);

  // With a first segment of its own length too: still 4 (it reads both).
  a.kernels["k__transition"] = KernelInfo{};
  a.kernels["k__replay"] = KernelInfo{};
  a.plans["split"] = splitSeqPlan(14, false, 13);
  s = roundTrip(a, back, "tensor-maps-first-segment",
                [&](std::string &text) { manifest = text; });
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_NE(manifest.find("\"format\": \"gdn-artifact-4\""), std::string::npos);

  Artifact plain;
  plain.ptx = "// ptx";
  plain.kernels["k"] = KernelInfo{};
  s = roundTrip(plain, back, "no-tensor-maps",
                [&](std::string &text) { manifest = text; });
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_NE(manifest.find("\"format\": \"gdn-artifact-2\""), std::string::npos);
}

// A malformed tensor_map parameter is refused on load, naming the kernel.
TEST(ArtifactManifest, RefusesAMalformedTensorMap) {
  Artifact a;
  a.ptx = "// ptx";
  a.kernels["k"] = tensorMapKernel();
  a.plans["k"] = LaunchPlan::single("k");
  ASSERT_TRUE(readEdited(a, "\"swizzle\": 128", "\"swizzle\": 128").ok());
  const std::pair<std::string, std::string> edits[] = {
      {"\"swizzle\": 128", "\"swizzle\": 64"},
      {"\"swizzle\": 128", "\"swizzle\": \"128B\""},
      {"\"source\": 0", "\"source\": 1"},  // the flag, not a memref
      {"\"source\": 0", "\"source\": 2"},  // the scratch
      {"\"source\": 0", "\"source\": 9"},
      {"\"source\": 0", "\"origin\": 0"},
      {"\"box\"", "\"boxes\""},
  };
  const char *named[] = {"'swizzle'", "'swizzle'", "source 1", "source 2",
                         "source 9", "'source'", "'box'"};
  for (size_t i = 0; i < std::size(edits); ++i) {
    Status s = readEdited(a, edits[i].first, edits[i].second);
    EXPECT_FALSE(s.ok()) << edits[i].second;
    EXPECT_NE(s.message.find("kernel 'k' has a malformed tensor_map"),
              std::string::npos)
        << s.message;
    EXPECT_NE(s.message.find(named[i]), std::string::npos) << s.message;
  }

  // Boxes: one dimension per source dimension, each 1 .. 256.
  Artifact back;
  for (std::vector<int64_t> box : {std::vector<int64_t>{64, 64},
                                   std::vector<int64_t>{64, 1, 0, 1},
                                   std::vector<int64_t>{64, 1, 257, 1}}) {
    a.kernels["k"].params[3].box = box;
    Status s = roundTrip(a, back, "bad-box");
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message.find("box"), std::string::npos) << s.message;
  }
  // Maps come last, after the scratch.
  a.kernels["k"] = tensorMapKernel();
  std::swap(a.kernels["k"].params[2], a.kernels["k"].params[3]);
  Status s = roundTrip(a, back, "map-before-scratch");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("after the scratch"), std::string::npos)
      << s.message;
  a.kernels["k"] = tensorMapKernel();
  a.kernels["k"].params.push_back(a.kernels["k"].params[1]);
  s = roundTrip(a, back, "param-after-map");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("after its tensor maps"), std::string::npos)
      << s.message;
}
