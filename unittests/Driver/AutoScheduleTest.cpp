//===- AutoScheduleTest.cpp - the rule of --schedule auto -----------------===//
//
// The rule against the H200 measurements it was drawn from (bench/RESULTS.md,
// 2026-11-30: the fastest schedule of ours on each benchmark shape), and its
// edges.
//
//===----------------------------------------------------------------------===//

#include "gdn/Driver/AutoSchedule.h"
#include "gdn/Runtime/LaunchPlan.h"

#include <gtest/gtest.h>

#include <set>

using namespace gdn::run;

namespace {
std::string pick(int64_t programs, int64_t longest, int64_t V = 128,
                 int64_t sms = 132) {
  Workload w;
  w.programs = programs;
  w.longestTokens = longest;
  w.V = V;
  ScheduleChoice c = chooseSchedule(w, sms);
  EXPECT_NE(c.pick, nullptr);
  EXPECT_FALSE(c.why.empty());
  return c.pick ? c.pick->schedule : "";
}

// auto's split-seq: replay loads the WY factors transition stored.
const std::string kSeg16 = "split-seq segment-chunks=16 replay=load intermediates=bf16";
const std::string kSeg32 = "split-seq segment-chunks=32 replay=load intermediates=bf16";
const std::string kSeg64 = "split-seq segment-chunks=64 replay=load intermediates=bf16";
const std::string kSeg128 = "split-seq segment-chunks=128 replay=load intermediates=bf16";
// first-segment=run: segment 0 in transition, its own length; no L2
// prefetch of the next chunk.
std::string run(int64_t segment, int64_t first) {
  return "split-seq segment-chunks=" + std::to_string(segment) +
         " replay=load intermediates=bf16 first-segment=run "
         "first-segment-chunks=" +
         std::to_string(first) + " prefetch=none";
}
} // namespace

TEST(AutoSchedule, MeasuredBenchmarkShapes) {
  // HV = 32 (H = 16), K = V = 128; HV = 8 for the last one.
  // 2 to 4 blocks a program in one wave: first-segment=run (2026-12-02).
  EXPECT_EQ(pick(32, 4096), run(14, 13)); // 1x4096: 13 + 3 x 14 + 9
  EXPECT_EQ(pick(32, 16384), run(58, 50)); // 1x16384: 50 + 3 x 58 + 32
  EXPECT_EQ(pick(256, 4096), "fused"); // 8 x 4096
  EXPECT_EQ(pick(64, 16384), run(116, 101)); // 2 x 16384: 101 + 116 + 39
  EXPECT_EQ(pick(8, 32768), kSeg32); // H=2 HV=8 1x32768
  EXPECT_EQ(pick(8, 65536), kSeg64); // H=2 HV=8 1x65536
}

TEST(AutoSchedule, RunFirstFillsTheBlocksAProgramHas) {
  // 132 / programs blocks a program (2 to 4): the first-segment=run
  // candidate whose segments but one fill them exactly; counted over the
  // chunks and the paged prefix's slot, as planCall counts them.
  EXPECT_EQ(pick(33, 4096), run(14, 13));  // 4 blocks a program
  EXPECT_EQ(pick(33, 4097), run(14, 13));  // 66 slots: 13 + 4 x 14 still
  EXPECT_EQ(pick(32, 8192), run(29, 25));  // 25 + 3 x 29 + 17
  EXPECT_EQ(pick(64, 8192), run(58, 50));  // 2 blocks: 50 + 58 + 21
  EXPECT_EQ(pick(64, 4096), run(29, 25));  // 25 + 29 + 11
  EXPECT_EQ(pick(66, 16384), run(116, 101));
  // Shorter than 32 chunks, or none fills them: the split-seq rule below.
  EXPECT_EQ(pick(32, 2047), "fused v-block=64");
  EXPECT_EQ(pick(34, 8200), kSeg64);       // 3 blocks a program
  EXPECT_EQ(pick(32, 65536), kSeg64);
  EXPECT_EQ(pick(64, 65536), "fused v-block=64");
  // More than 4 blocks a program: the split-seq rule.
  EXPECT_EQ(pick(26, 4096), kSeg16);
  EXPECT_EQ(pick(8, 32768), kSeg32);
}

TEST(AutoSchedule, SegmentsFillOneWave) {
  // The shortest segments (16, 32, 64 chunks) whose blocks, programs x
  // segments, still fit in one wave; 64 when none does.
  EXPECT_EQ(pick(8, 16384), kSeg16); // 16 of 16
  EXPECT_EQ(pick(8, 16385), kSeg32);
  EXPECT_EQ(pick(1, 1 << 20), kSeg64); // 256 > 132
}

TEST(AutoSchedule, TwoSegmentsInOneWave) {
  // Up to half the SMs: split-seq when segments of 64 or 128 chunks cut the
  // longest sequence in two or more and still fit one wave; else the V-split.
  EXPECT_EQ(pick(34, 8200), kSeg64);   // 3 segments of 64: 102 blocks
  EXPECT_EQ(pick(66, 6336), kSeg64);   // 2 segments of 64 (100 slots: no
                                       // run-first candidate fills 2 blocks)
  EXPECT_EQ(pick(60, 2047), "fused v-block=64");  // one segment
  EXPECT_EQ(pick(64, 65536), "fused v-block=64"); // 8 x 64 blocks
  EXPECT_EQ(pick(67, 16384), "fused");            // past half the SMs
  // Band 1 keeps its 16 to 64-chunk segments.
  EXPECT_EQ(pick(32, 65536), kSeg64);
}

TEST(AutoSchedule, Edges) {
  // Short sequences never split into segments.
  EXPECT_EQ(pick(2, 2047), "fused v-block=64");
  EXPECT_EQ(pick(2, 2048), kSeg16);
  // V = 64 is one block already.
  EXPECT_EQ(pick(2, 100, 64), "fused");
  // A V-split past one wave is not taken; a full GPU takes fused.
  EXPECT_EQ(pick(67, 100), "fused");
  EXPECT_EQ(pick(66, 100), "fused v-block=64");
  EXPECT_EQ(pick(132, 100000), "fused");
  // Fewer SMs: the same thresholds scale with the device.
  EXPECT_EQ(pick(32, 4096, 128, 66), run(29, 25));
  EXPECT_EQ(pick(33, 2047, 128, 66), "fused v-block=64");
  EXPECT_EQ(pick(33, 2048, 128, 66), run(14, 13));
}

TEST(AutoSchedule, UnreadLengthsCountAsEven) {
  // A device call leaves cu_seqlens unread: the rule sees B sequences of
  // T / B tokens, so 2 x 16384 picks what it picks with the lengths known.
  Problem p;
  p.shapesOnly = true;
  p.dims.T = 2 * 16384;
  p.dims.H = 16;
  p.dims.G = 2;
  p.dims.V = 128;
  p.tensors["cu_seqlens"].shape = {3};
  Workload w = workloadOf(p);
  EXPECT_EQ(w.programs, 64);
  EXPECT_EQ(w.longestTokens, 16384);
  EXPECT_EQ(chooseSchedule(w, 132).pick->schedule, run(116, 101));
  p.dims.T = 2 * 16384 + 1; // rounds up
  EXPECT_EQ(workloadOf(p).longestTokens, 16385);
}

TEST(AutoSchedule, NoWork) {
  // Every sequence empty: nothing to spread, plain fused.
  EXPECT_EQ(pick(0, 0), "fused");
}

TEST(AutoSchedule, PicksOnlyWhatAnAutoSetHolds) {
  // An auto set holds the candidates that apply to its V; the rule must
  // never pick another, or the runtime would find no artifact.
  for (int64_t K : {32, 64, 100, 128, 192, 256})
    for (int64_t V : {64, 100, 128, 256, 512})
      for (int64_t programs : {1, 8, 33, 64, 66, 67, 200})
        for (int64_t longest : {1, 1000, 2048, 100000}) {
          Workload w{programs, longest, V, K};
          const AutoCandidate *c = chooseSchedule(w, 132).pick;
          ASSERT_NE(c, nullptr);
          EXPECT_TRUE(candidateApplies(*c, K, V))
              << c->name << " for K=" << K << " V=" << V << ", " << programs
              << " programs";
        }
}

TEST(AutoSchedule, WideKeyHeadsShareTheSolveOfTheirVBlocks) {
  // K = 256 (H100, 2026-12-07): `staged-per-head` (one WY solve per value
  // head, V-blocks of 64) at every shape whose workspaces stay within the
  // limit; `fused v-block=64` (no workspaces) beyond it. `fused` and
  // `fused v-block=128` need more shared memory than the GPU has.
  for (int64_t V : {64, 256, 512})
    for (int64_t programs : {0, 8, 32, 256})
      for (int64_t longest : {1, 16384}) {
        Workload w{programs, longest, V, 256};
        EXPECT_EQ(std::string(chooseSchedule(w, 132).pick->name),
                  "staged-per-head")
            << V << " " << programs << " " << longest;
      }
  // Workspaces number the call's chunks (ceil(T / 64) + 2 B + 1 slots,
  // whether or not the lengths are read). 8 x 4096: 32 heads x 529 slots x
  // 40 KB, 661 MiB.
  auto slots = [](int64_t tokens, int64_t sequences) {
    return gdn::chunkSlotsFor(tokens, tokens, sequences, 64).call;
  };
  Workload eight{256, 4096, 256, 256, slots(32768, 8), 32};
  ScheduleChoice c = chooseSchedule(eight, 132);
  EXPECT_EQ(std::string(c.pick->name), "staged-per-head");
  EXPECT_NE(c.why.find("661 MiB"), std::string::npos) << c.why;
  // 48 sequences of 206,782 tokens in all: 4160 MiB, within the limit.
  Workload many{48 * 32, 4308, 256, 256, slots(206782, 48), 32};
  EXPECT_EQ(std::string(chooseSchedule(many, 132).pick->name),
            "staged-per-head");
  // One sequence of 1,048,576 tokens: 20 GiB; the rule keeps the V-split
  // without workspaces and says why.
  Workload million{32, 1048576, 256, 256, slots(1048576, 1), 32};
  c = chooseSchedule(million, 132);
  EXPECT_EQ(std::string(c.pick->schedule), "fused v-block=64");
  EXPECT_NE(c.why.find("over 8192"), std::string::npos) << c.why;
  Workload odd{32, 16384, 100, 256};
  EXPECT_EQ(std::string(chooseSchedule(odd, 132).pick->schedule), "fused");
  // An auto set for a wide head holds those two candidates (and compiles
  // in seconds: no split-seq member); heads of 128 or less never get it.
  int held = 0;
  for (const AutoCandidate &c : autoCandidates()) {
    held += candidateApplies(c, 256, 512);
    if (std::string(c.name) == "staged-per-head")
      for (int64_t K : {32, 64, 128})
        EXPECT_FALSE(candidateApplies(c, K, 128)) << K;
  }
  EXPECT_EQ(held, 2);
  // K = 128 keeps the rule measured on it.
  EXPECT_EQ(std::string(chooseSchedule(Workload{256, 4096, 128, 128}, 132)
                            .pick->schedule),
            "fused");
}

namespace {
/// The rule's pick for key and value heads of `head` each (64: small).
std::string pickHeads(int64_t programs, int64_t longest, int64_t head = 64,
                      int64_t sms = 132) {
  Workload w{programs, longest, head, head};
  ScheduleChoice c = chooseSchedule(w, sms);
  EXPECT_NE(c.pick, nullptr);
  return c.pick ? c.pick->schedule : "";
}
const std::string kOneWarpgroup = " warpgroups=1";
} // namespace

TEST(AutoSchedule, SmallHeadsTakeOneWarpgroupWhereBlocksOutnumberSMs) {
  // K = V = 64, HV = 32 (H100, 2026-12-06, bench/RESULTS.md): the rule over
  // two block slots an SM, compiled with one warpgroup a block, wherever
  // its grid has more blocks than SMs.
  EXPECT_EQ(pickHeads(32, 8192), kSeg16 + kOneWarpgroup);  // 8 x 32 blocks
  EXPECT_EQ(pickHeads(32, 16384), kSeg32 + kOneWarpgroup); // 8 x 32
  EXPECT_EQ(pickHeads(256, 4096), "fused" + kOneWarpgroup);
  // 2 x 16384: 4 blocks a program of 264 slots, 50 + 3 x 58 + 33.
  EXPECT_EQ(pickHeads(64, 16384), run(58, 50) + kOneWarpgroup);
  // 1 x 4096: one warpgroup's 4 x 32 blocks fit one an SM; two warpgroups
  // a block, and the rule over one block an SM.
  EXPECT_EQ(pickHeads(32, 4096), run(14, 13));
  // The grid against the SMs, at its edge.
  EXPECT_EQ(pickHeads(132, 100), "fused");
  EXPECT_EQ(pickHeads(133, 100), "fused" + kOneWarpgroup);
  EXPECT_EQ(pickHeads(0, 0), "fused");
  EXPECT_EQ(pickHeads(133, 100, 32), "fused" + kOneWarpgroup); // K = V = 32
  // Fewer SMs scale it: 66 SMs, 132 slots.
  EXPECT_EQ(pickHeads(32, 8192, 64, 66), run(29, 25) + kOneWarpgroup);
  // A head above 64 keeps two warpgroups: K = 64 with V = 128 as K = V = 128.
  Workload mixed{32, 8192, 128, 64};
  EXPECT_EQ(std::string(chooseSchedule(mixed, 132).pick->schedule),
            run(29, 25));
  // The why says which and why.
  ScheduleChoice c = chooseSchedule(Workload{256, 4096, 64, 64}, 132);
  EXPECT_NE(c.why.find("264 block slots (two an SM)"), std::string::npos)
      << c.why;
  EXPECT_NE(c.why.find("one warpgroup a block: 256 blocks outnumber the 132 "
                       "SMs"),
            std::string::npos)
      << c.why;
  c = chooseSchedule(Workload{32, 4096, 64, 64}, 132);
  EXPECT_NE(c.why.find("two warpgroups a block"), std::string::npos) << c.why;
}

TEST(AutoSchedule, OneWarpgroupTwinsAreForSmallHeadsOnly) {
  int twins = 0;
  for (const AutoCandidate &c : autoCandidates()) {
    if (c.warpgroups != 1)
      continue;
    ++twins;
    const std::string name = c.name, text = c.schedule;
    EXPECT_EQ(name.substr(name.size() - 4), "-wg1");
    EXPECT_EQ(candidateSchedule(c).warpgroups, 1) << name;
    EXPECT_TRUE(candidateApplies(c, 64, 64)) << name;
    EXPECT_TRUE(candidateApplies(c, 32, 48)) << name;
    EXPECT_FALSE(candidateApplies(c, 64, 128)) << name;
    EXPECT_FALSE(candidateApplies(c, 128, 64)) << name;
    EXPECT_FALSE(candidateApplies(c, 256, 64)) << name;
  }
  // One for each candidate but the V-split.
  EXPECT_EQ(twins, 9);
}

TEST(AutoSchedule, CandidateNamesAreDirectoryNames) {
  std::set<std::string> names;
  for (const AutoCandidate &c : autoCandidates()) {
    std::string name = c.name;
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"),
              std::string::npos)
        << name;
  }
  // A split-seq candidate's segment length is the one its text asks for.
  for (const AutoCandidate &c : autoCandidates()) {
    std::string text = c.schedule;
    EXPECT_EQ(text.rfind("split-seq", 0) == 0, c.segmentChunks > 0) << text;
    if (c.segmentChunks) {
      EXPECT_NE(text.find("segment-chunks=" + std::to_string(c.segmentChunks) + " "),
                std::string::npos)
          << text;
    }
  }
  EXPECT_FALSE(candidateApplies(autoCandidates()[1], 128, 64));
  EXPECT_TRUE(candidateApplies(autoCandidates()[1], 128, 128));
}

namespace {
/// A device call's problem (shapes only): `sequences` of `tokens` each.
gdn::run::Problem deviceProblem(int64_t sequences, int64_t tokens,
                                int64_t HV = 32) {
  Problem p;
  p.shapesOnly = true;
  p.dims.H = HV / 2;
  p.dims.G = 2;
  p.dims.K = p.dims.V = 128;
  p.dims.T = sequences * tokens;
  p.tensors["cu_seqlens"] =
      gdn::HostTensor::zeros(gdn::DType::I64, {sequences + 1});
  return p;
}
} // namespace

// Every candidate's text parses, and to the kind its name says.
TEST(AutoSchedule, EveryCandidateParses) {
  for (const AutoCandidate &c : autoCandidates()) {
    const mlir::gdn::ScheduleOptions &o = candidateSchedule(c);
    const std::string name = c.name;
    EXPECT_EQ(o.kind, c.segmentChunks            ? "split-seq"
                      : name == "staged-per-head" ? "staged"
                                                  : "fused")
        << c.name;
    EXPECT_EQ(o.segmentChunks, c.segmentChunks ? c.segmentChunks : 16)
        << c.name;
    EXPECT_EQ(o.firstSegmentChunks, c.firstSegmentChunks) << c.name;
    EXPECT_EQ(o.warpgroups, c.warpgroups) << c.name;
  }
}

TEST(ScheduleRequest, AutoOrParsedOnce) {
  ScheduleRequest r;
  std::string error;
  ASSERT_TRUE(ScheduleRequest::parse("auto", r, error)) << error;
  EXPECT_TRUE(r.isAuto);
  ASSERT_TRUE(ScheduleRequest::parse("staged-bf16", r, error)) << error;
  EXPECT_FALSE(r.isAuto);
  EXPECT_EQ(r.concrete.kind, "staged");
  EXPECT_EQ(r.concrete.intermediates, "bf16");
  EXPECT_FALSE(ScheduleRequest::parse("fused v-block=48", r, error));
  EXPECT_NE(error.find("v-block=48"), std::string::npos) << error;
}

// resolveSchedule is chooseSchedule on the call's workload, or the request.
TEST(ResolveSchedule, AutoPicksForTheCallAndSaysWhy) {
  const Problem oneLong = deviceProblem(1, 16384);
  ResolvedSchedule r =
      resolveSchedule(ScheduleRequest::automatic(), oneLong, 132);
  ASSERT_NE(r.pick, nullptr);
  Workload w = workloadOf(oneLong);
  EXPECT_EQ(r.pick, chooseSchedule(w, 132).pick);
  EXPECT_EQ(r.schedule.str(), candidateSchedule(*r.pick).str());
  EXPECT_EQ(r.line.rfind("schedule: auto -> ", 0), 0u) << r.line;
  EXPECT_EQ(r.line.find("assumed"), std::string::npos) << r.line;

  // No GPU asked: an H200's SM count, and the line says so.
  ResolvedSchedule nominal =
      resolveSchedule(ScheduleRequest::automatic(), oneLong, 0);
  EXPECT_EQ(nominal.pick, r.pick);
  EXPECT_NE(nominal.line.find("an H200's SMs assumed"), std::string::npos)
      << nominal.line;

  // Many programs fill the SMs: fused.
  ResolvedSchedule many =
      resolveSchedule(ScheduleRequest::automatic(), deviceProblem(8, 4096), 132);
  ASSERT_NE(many.pick, nullptr);
  EXPECT_STREQ(many.pick->name, "fused");

  ScheduleRequest staged;
  std::string error;
  ASSERT_TRUE(ScheduleRequest::parse("staged", staged, error)) << error;
  ResolvedSchedule asked = resolveSchedule(staged, oneLong, 132);
  EXPECT_EQ(asked.pick, nullptr);
  EXPECT_TRUE(asked.line.empty());
  EXPECT_EQ(asked.schedule.kind, "staged");
}

// The chunk a call runs with: the call's, else the schedule's, else 64;
// auto and concrete schedules are resolved with it.
TEST(BindChunkSize, CallScheduleOrDefault) {
  auto request = [](const std::string &spec) {
    ScheduleRequest r;
    std::string error;
    EXPECT_TRUE(ScheduleRequest::parse(spec, r, error)) << error;
    return r;
  };
  Problem p = deviceProblem(1, 4096);
  p.interface = Interface::Pool;
  ASSERT_TRUE(bindChunkSize(p, request("fused")).ok());
  EXPECT_EQ(p.flags.chunkSize, 64);
  EXPECT_EQ(resolveSchedule(request("fused"), p, 132).schedule.str(), "fused");

  p.flags.chunkSize = 0;
  ASSERT_TRUE(bindChunkSize(p, request("fused chunk=32")).ok());
  EXPECT_EQ(p.flags.chunkSize, 32);

  p.flags.chunkSize = 128;
  ASSERT_TRUE(bindChunkSize(p, ScheduleRequest::automatic()).ok());
  EXPECT_EQ(resolveSchedule(ScheduleRequest::automatic(), p, 132).schedule.chunk,
            128);

  p.flags.chunkSize = 64;
  gdn::Status s = bindChunkSize(p, request("staged chunk=128"));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("64 disagrees with the schedule's chunk=128"),
            std::string::npos)
      << s.message;
}

TEST(BindChunkSize, PagedChunkDividesThePage) {
  Problem p = deviceProblem(1, 4096);
  p.interface = Interface::Paged;
  p.flags.pageSize = 192;
  p.flags.chunkSize = 128;
  gdn::Status s = bindChunkSize(p, ScheduleRequest::automatic());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("page_size = 192 is not a multiple of the chunk "
                           "size 128"),
            std::string::npos)
      << s.message;
  p.flags.chunkSize = 64;
  EXPECT_TRUE(bindChunkSize(p, ScheduleRequest::automatic()).ok());
}
