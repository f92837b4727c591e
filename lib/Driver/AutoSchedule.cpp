//===- AutoSchedule.cpp - the rule behind --schedule auto -----------------===//

#include "gdn/Driver/AutoSchedule.h"
#include "gdn/Runtime/KernelArgs.h"
#include "gdn/Runtime/LaunchPlan.h"
#include "gdn/Runtime/Segments.h"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>

using namespace gdn;
using namespace gdn::run;

Workload run::workloadOf(const Problem &p) {
  Workload w;
  w.V = p.dims.V;
  w.K = p.dims.K;
  w.valueHeads = p.dims.HV();
  // As Launch.cpp sizes workspaces over the call's chunks.
  w.slotsPerHead =
      chunkSlotsFor(p.longestSequence(), p.dims.T, p.batch(), 64).call;
  if (p.shapesOnly) {
    // A device call that leaves cu_seqlens unread (so that it can be
    // captured in a CUDA graph): the mean length stands for the longest.
    // Exact for even batches; a skewed one gets shorter segments than it
    // could use (a few blocks past one wave), never a wrong result: grids
    // are still sized for all T tokens in a sequence (Launch.cpp).
    int64_t sequences = std::max<int64_t>(p.batch(), 1);
    w.longestTokens = (p.dims.T + sequences - 1) / sequences;
    w.programs = p.batch() * p.dims.HV();
    return w;
  }
  std::vector<int64_t> cu = p.tensors.at("cu_seqlens").toIndices();
  int64_t sequences = 0;
  for (size_t b = 0; b + 1 < cu.size(); ++b) {
    int64_t n = cu[b + 1] - cu[b];
    sequences += n > 0;
    w.longestTokens = std::max(w.longestTokens, n);
  }
  w.programs = sequences * p.dims.HV();
  return w;
}

/// Each candidate but the V-split, compiled with one warpgroup a block
/// (`<name>-wg1`, its text and warpgroups=1), for heads of at most 64
/// (smallHead).
static std::vector<AutoCandidate>
withOneWarpgroupTwins(std::vector<AutoCandidate> candidates) {
  static std::deque<std::string> texts; // the twins' names and schedules
  const size_t base = candidates.size();
  for (size_t i = 0; i < base; ++i) {
    AutoCandidate twin = candidates[i];
    if (std::string(twin.name) == "fused-v-block-64" ||
        std::string(twin.name) == "staged-per-head")
      continue; // no V-split below V = 128
    twin.name = texts.emplace_back(std::string(twin.name) + "-wg1").c_str();
    twin.schedule =
        texts.emplace_back(std::string(twin.schedule) + " warpgroups=1")
            .c_str();
    twin.warpgroups = 1;
    candidates.push_back(twin);
  }
  return candidates;
}

const std::vector<AutoCandidate> &run::autoCandidates() {
  static const std::vector<AutoCandidate> candidates = withOneWarpgroupTwins({
      {"fused", "fused"},
      {"fused-v-block-64", "fused v-block=64"},
      // Key heads above 128 only: one WY solve per value head, shared by
      // its V-blocks of 64 (wideHeadPick).
      {"staged-per-head", "staged intermediates=bf16 output=with-state "
                          "store=solve prepare-per=head v-block=64"},
      // replay=load: replay reads the WY factors transition computed (bf16)
      // instead of computing them again; 4% to 6% faster on every split-seq
      // shape of bench/RESULTS.md, for 48 KB of workspace per chunk and
      // program at K = V = 128.
      {"split-seq", "split-seq segment-chunks=16 replay=load intermediates=bf16",
       16},
      {"split-seq-32",
       "split-seq segment-chunks=32 replay=load intermediates=bf16", 32},
      {"split-seq-64",
       "split-seq segment-chunks=64 replay=load intermediates=bf16", 64},
      {"split-seq-128",
       "split-seq segment-chunks=128 replay=load intermediates=bf16", 128},
      // first-segment=run with lengths that balance the two kernels when
      // 2 to 4 segments a program fill a wave (docs/Schedules.md): segment
      // 0 about 7/8 of the others (its chunks are the slowest in
      // transition); the last, preparing its own chunks in replay, is what
      // remains. Lengths double from 1 x 4096 at HV=32 (13 / 14).
      // prefetch=none: without the next chunk's L2 prefetch these pool
      // calls ran 2% to 3% faster on the H200 and the paged ones level
      // (bench/RESULTS.md, 2026-12-02); the other candidates keep it.
      {"split-seq-run-14",
       "split-seq segment-chunks=14 replay=load intermediates=bf16 "
       "first-segment=run first-segment-chunks=13 prefetch=none",
       14, 13},
      {"split-seq-run-29",
       "split-seq segment-chunks=29 replay=load intermediates=bf16 "
       "first-segment=run first-segment-chunks=25 prefetch=none",
       29, 25},
      {"split-seq-run-58",
       "split-seq segment-chunks=58 replay=load intermediates=bf16 "
       "first-segment=run first-segment-chunks=50 prefetch=none",
       58, 50},
      {"split-seq-run-116",
       "split-seq segment-chunks=116 replay=load intermediates=bf16 "
       "first-segment=run first-segment-chunks=101 prefetch=none",
       116, 101},
  });
  return candidates;
}

static bool splitsV(int64_t V) { return V > 64 && V % 64 == 0; }

/// K above 128: `fused` and `fused v-block=128` need more shared memory a
/// block than the GPU has at K = 256 (H100, 2026-12-06: 456 KB and 248 KB at
/// V = 256; the GPU allows 227 KB), and split-seq's kernels spill kilobytes
/// there and take minutes to compile.
static bool wideHead(int64_t K) { return K > 128; }

/// Workspace bytes `staged-per-head` may take (W and Tm per value head and
/// chunk slot of the call, bf16): beyond it a call keeps `fused
/// v-block=64`, which has none. FLA's own intermediates at 8 x 4096,
/// K = 256 / V = 512 are 4.3 GB (its chunk states alone).
static constexpr int64_t kPerHeadWorkspaceLimit = int64_t(8) << 30;

static int64_t perHeadWorkspaceBytes(const Workload &w) {
  return w.valueHeads * w.slotsPerHead * 64 * (w.K + 64) * 2;
}

/// The candidate for a key head above 128, and why: one of the two an auto
/// set for that head holds.
struct WideHeadPick {
  const char *name;
  std::string why;
};
static WideHeadPick wideHeadPick(const Workload &w) {
  if (w.V % 64 != 0)
    return {"fused", "a key head above 128 and no V-block of 64 divides V"};
  // H100, 2026-12-07 (bench/RESULTS.md), H=16 HV=32 K=256, paged call:
  // V=256 1 x 16384 2.352 ms against fused v-block=64's 2.727, 8 x 4096
  // 4.889 against 5.416; V=512 4.330 / 5.371 and 8.752 / 10.828.
  const int64_t bytes = perHeadWorkspaceBytes(w);
  if (bytes <= kPerHeadWorkspaceLimit)
    return {"staged-per-head",
            "a key head above 128: one WY solve per value head for its "
            "V-blocks of 64 (" +
                std::to_string(bytes >> 20) + " MiB of workspace)"};
  return {"fused-v-block-64",
          "a key head above 128 in V-blocks of 64; staged-per-head would "
          "take " +
              std::to_string(bytes >> 20) + " MiB of workspace, over " +
              std::to_string(kPerHeadWorkspaceLimit >> 20)};
}

/// Key and value heads of at most 64 each. One warpgroup holds such a
/// program's tiles in 206-250 registers a thread (ptxas, K = V = 64,
/// 2026-12-06), so two of its blocks share an SM; two warpgroups hold
/// split-seq's in 128-166 registers at 256 threads, one block an SM.
static bool smallHead(int64_t K, int64_t V) { return K <= 64 && V <= 64; }

bool run::candidateApplies(const AutoCandidate &c, int64_t K, int64_t V) {
  const std::string name = c.name;
  if (wideHead(K))
    return V % 64 == 0 ? name == "staged-per-head" || name == "fused-v-block-64"
                       : name == "fused";
  if (name == "staged-per-head")
    return false;
  if (c.warpgroups == 1 && !smallHead(K, V))
    return false;
  return name != "fused-v-block-64" || splitsV(V);
}

static const AutoCandidate *candidate(const char *name) {
  for (const AutoCandidate &c : autoCandidates())
    if (std::string(c.name) == name)
      return &c;
  return nullptr;
}

/// The split-seq candidate with the shortest segments in [minChunks,
/// maxChunks] that keeps programs x segments within one wave of `sms`
/// blocks and cuts the longest sequence (`chunks`) in two at least; null
/// when none does.
static const AutoCandidate *oneWaveSplit(int64_t programs, int64_t chunks,
                                         int64_t sms, int64_t minChunks,
                                         int64_t maxChunks) {
  for (const AutoCandidate &split : autoCandidates()) {
    int64_t seg = split.segmentChunks;
    if (!seg || seg < minChunks || seg > maxChunks)
      continue;
    int64_t segments = (chunks + seg - 1) / seg;
    if (segments >= 2 && programs * segments <= sms)
      return &split;
  }
  return nullptr;
}

/// The first-segment=run candidate whose segments fill the `sms / programs`
/// blocks a program of one wave (2 to 4 of them) exactly: each kernel works
/// in all segments but one (replay's segment 0, transition's last), so a
/// program has blocks for all but one of its segments. Segments are counted
/// as planCall counts them, over the chunks and the paged prefix's slot,
/// from the longest sequence the rule sees: a pool call has no chunk in
/// that slot, and a call that leaves cu_seqlens unread is launched for all
/// T tokens (Launch.cpp), so some segments may be empty (their blocks
/// return at once; measured here, e.g. 2 x 16384 through the Python
/// entry). Null when none does, when more or fewer blocks a program fit, or for
/// sequences shorter than two of split-seq's shortest segments (2048
/// tokens).
static const AutoCandidate *balancedRunFirst(int64_t programs,
                                             int64_t longestTokens,
                                             int64_t sms) {
  const int64_t perProgram = sms / std::max<int64_t>(programs, 1);
  if (perProgram < 2 || perProgram > 4 || longestTokens < 2 * 16 * 64)
    return nullptr;
  const int64_t chunks = (longestTokens + 63) / 64;
  const int64_t slots = chunks + 1;
  for (const AutoCandidate &c : autoCandidates()) {
    if (!c.firstSegmentChunks || slots <= c.firstSegmentChunks)
      continue;
    if (segmentCount(slots, c.segmentChunks, c.firstSegmentChunks) - 1 ==
        perProgram)
      return &c;
  }
  return nullptr;
}

/// The blocks that work in the pick's widest kernel for `w`, counted as
/// the branch of the rule that picked it counts them: a fused kernel's
/// programs (x V-blocks); split-seq's programs x segments over the chunks;
/// first-segment=run's programs x its segments but one, over the chunks
/// and the paged prefix's slot.
static int64_t gridBlocks(const AutoCandidate &c, const Workload &w) {
  const mlir::gdn::ScheduleOptions &s = candidateSchedule(c);
  if (!c.segmentChunks)
    return w.programs * (s.vBlock ? w.V / s.vBlock : 1);
  const int64_t chunks = (w.longestTokens + 63) / 64;
  if (!c.firstSegmentChunks)
    return w.programs * segmentCount(chunks, c.segmentChunks);
  return w.programs *
         (segmentCount(chunks + 1, c.segmentChunks, c.firstSegmentChunks) - 1);
}

/// The one-warpgroup twin of `c`.
static const AutoCandidate *oneWarpgroupTwin(const AutoCandidate &c) {
  for (const AutoCandidate &twin : autoCandidates())
    if (twin.warpgroups == 1 && std::string(twin.name) == std::string(c.name) + "-wg1")
      return &twin;
  return nullptr;
}

/// The numbers the rule looked at, as its why starts.
static std::string workloadLine(const Workload &w, int64_t sms,
                                const std::string &slotsAre) {
  return std::to_string(w.programs) + " programs (value heads x sequences), " +
         std::to_string(sms) + " " + slotsAre + ", longest sequence " +
         std::to_string(w.longestTokens) + " tokens, V=" + std::to_string(w.V);
}

/// The rule over `sms` block slots, blocks that run at once (an SM each
/// for blocks of two warpgroups); `slotsAre` names them in the why.
static ScheduleChoice chooseForSlots(const Workload &w, int64_t sms,
                                     const std::string &slotsAre) {
  // split-seq's shortest segments are 16 chunks: with two or more per
  // sequence it multiplies the programs; below that it only adds kernels.
  constexpr int64_t kSegmentTokens = 16 * 64;
  const int64_t chunks = (w.longestTokens + 63) / 64;
  const std::string numbers = workloadLine(w, sms, slotsAre);
  ScheduleChoice c;
  if (w.programs == 0) {
    c.pick = candidate("fused");
    c.why = numbers + ": no new tokens, nothing to spread";
  } else if (w.programs >= sms) {
    c.pick = candidate("fused");
    c.why = numbers + ": the programs fill the SMs";
  } else if (const AutoCandidate *run = balancedRunFirst(w.programs, w.longestTokens, sms)) {
    // H200, 2026-12-02 (bench/RESULTS.md), CUDA events against the
    // branches below: 1 x 4096 at HV=32 pool 0.281 -> 0.279 ms, paged
    // 0.315 -> 0.295; 1 x 16384 pool 1.023 -> 0.995, paged 1.137 -> 1.010.
    c.pick = run;
    c.why = numbers + ": segment 0 of " +
            std::to_string(run->firstSegmentChunks) +
            " chunks run in transition, then segments of " +
            std::to_string(run->segmentChunks) + " fill the " +
            std::to_string(sms / w.programs) +
            " blocks a program of one wave";
  } else if (w.programs * 4 <= sms && w.longestTokens >= 2 * kSegmentTokens) {
    // Segments as short as one wave of blocks allows (programs x segments
    // <= SMs): shorter ones add a wave, and every segment adds a step to
    // the serial combine. Segments are counted over the new tokens' chunks;
    // the launch adds a slot for paged prefixes (Launch.cpp), which in a
    // pool call holds no chunk and in a paged call at most one. H200,
    // 2026-11-30, replay=load, 16 / 32 / 64 chunks a segment: 1 x 16384 at
    // HV=32 1.762 / 1.704 / 1.667 ms, HV=8 1 x 32768 1.028 / 0.922 / 1.669,
    // 1 x 65536 2.039 / 1.838 / 1.736 (bench/RESULTS.md). Past one wave,
    // 64 (longer segments were not measured there).
    c.pick = oneWaveSplit(w.programs, chunks, sms, 16, 64);
    const std::string fit =
        c.pick ? " (one wave: at most " + std::to_string(sms / w.programs) +
                     " segments a program)"
               : ", the longest (more than one wave either way)";
    if (!c.pick)
      c.pick = candidate("split-seq-64");
    c.why = numbers + ": few programs and long sequences, split into segments of " +
            std::to_string(c.pick->segmentChunks) + " chunks" + fit;
  } else if (w.programs * 2 <= sms &&
             (c.pick = oneWaveSplit(w.programs, chunks, sms, 64, 128))) {
    // Two segments of 64 or 128 chunks a program still fit one wave. H200,
    // 2026-12-01 (bench/RESULTS.md), 2 x 16384 at HV=32: split-seq with
    // 128-chunk segments 2.373 ms, 32-chunk 2.431, fused v-block=64 2.634.
    c.why = numbers + ": long sequences, segments of " +
            std::to_string(c.pick->segmentChunks) +
            " chunks (two or more a program) fit one wave";
  } else if (!splitsV(w.V)) {
    c.pick = candidate("fused");
    c.why = numbers + ": no V-split below V=128";
  } else if (w.programs * (w.V / 64) <= sms) {
    c.pick = candidate("fused-v-block-64");
    c.why = numbers + ": the V-split still fits in one wave";
  } else {
    c.pick = candidate("fused");
    c.why = numbers + ": a V-split would not fit in one wave";
  }
  return c;
}

ScheduleChoice run::chooseSchedule(const Workload &w, int64_t sms) {
  if (wideHead(w.K)) {
    // The V-split also gives 1 x 16384 at HV = 32 its 128 programs.
    const WideHeadPick wide = wideHeadPick(w);
    ScheduleChoice c;
    c.pick = candidate(wide.name);
    c.why = workloadLine(w, sms, "SMs") + ", K=" + std::to_string(w.K) +
            ": " + wide.why;
    return c;
  }
  if (!smallHead(w.K, w.V))
    return chooseForSlots(w, sms, "SMs");
  // One warpgroup a block, two blocks an SM, wins where the grid has more
  // blocks than SMs; where it fits one block an SM, two warpgroups a block
  // (twice the warps on each) win. H100, 2026-12-06, K = V = 64, HV = 32
  // (bench/RESULTS.md), pool call: 1 x 8192 0.337 -> 0.248 ms, 1 x 16384
  // 0.647 -> 0.468, 8 x 4096 0.696 -> 0.644, 2 x 16384 1.578 -> 0.884;
  // at 1 x 4096 (128 blocks) run-14 with two 0.186, with one 0.220.
  ScheduleChoice paired = chooseForSlots(w, 2 * sms, "block slots (two an SM)");
  const int64_t blocks = gridBlocks(*paired.pick, w);
  if (blocks > sms) {
    paired.pick = oneWarpgroupTwin(*paired.pick);
    paired.why += "; one warpgroup a block: " + std::to_string(blocks) +
                  " blocks outnumber the " + std::to_string(sms) +
                  " SMs, two share each";
    return paired;
  }
  ScheduleChoice single = chooseForSlots(w, sms, "SMs");
  single.why += "; two warpgroups a block: one warpgroup's " +
                std::to_string(blocks) + " blocks would not need two an SM";
  return single;
}

bool ScheduleRequest::parse(const std::string &spec, ScheduleRequest &out,
                            std::string &error) {
  if (spec == kAutoSchedule) {
    out = automatic();
    return true;
  }
  out.isAuto = false;
  return mlir::gdn::parseSchedule(spec, out.concrete, error);
}

ScheduleRequest ScheduleRequest::automatic() {
  ScheduleRequest r;
  r.isAuto = true;
  return r;
}

/// Parsed on first use (the texts are ours: one that does not parse is a
/// bug, which the unit tests catch).
const mlir::gdn::ScheduleOptions &run::candidateSchedule(const AutoCandidate &c) {
  static std::mutex mutex;
  static std::map<std::string, mlir::gdn::ScheduleOptions> parsed;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = parsed.find(c.name);
  if (it == parsed.end()) {
    mlir::gdn::ScheduleOptions o;
    std::string error;
    if (!mlir::gdn::parseSchedule(c.schedule, o, error))
      throw std::logic_error("auto candidate '" + std::string(c.name) +
                             "' does not parse: " + error);
    it = parsed.emplace(c.name, o).first;
  }
  return it->second;
}

ResolvedSchedule run::resolveSchedule(const ScheduleRequest &request,
                                      const Problem &problem, int64_t sms) {
  ResolvedSchedule r;
  if (!request.isAuto) {
    r.schedule = request.concrete;
    if (problem.flags.chunkSize)
      r.schedule.chunk = problem.flags.chunkSize;
    return r;
  }
  const bool nominal = sms <= 0;
  ScheduleChoice choice =
      chooseSchedule(workloadOf(problem), nominal ? kNominalSMs : sms);
  r.pick = choice.pick;
  r.schedule = candidateSchedule(*choice.pick);
  if (problem.flags.chunkSize)
    r.schedule.chunk = problem.flags.chunkSize;
  r.line = std::string("schedule: auto -> ") + choice.pick->schedule + " (" +
           choice.why +
           (nominal ? "; no GPU asked, an H200's SMs assumed" : "") + ")";
  return r;
}

Status run::bindChunkSize(Problem &problem, const ScheduleRequest &request) {
  int64_t &call = problem.flags.chunkSize;
  const int64_t named = request.isAuto ? 0 : request.concrete.chunk;
  if (call && named && call != named)
    return Status::error(
        "chunk size (--chunk-size, chunk_size) " + std::to_string(call) +
        " disagrees with the schedule's chunk=" + std::to_string(named) +
        " (schedule '" + request.concrete.name +
        "'): give one of them, or the same size in both");
  const int64_t chunk = call    ? call
                        : named ? named
                                : gdn::KernelShape::kDefaultChunk;
  if (problem.interface == Interface::Paged &&
      problem.flags.pageSize % chunk != 0)
    return Status::error("page_size = " +
                         std::to_string(problem.flags.pageSize) +
                         " is not a multiple of the chunk size " +
                         std::to_string(chunk) +
                         " (every page boundary must be a chunk boundary)");
  call = chunk;
  return Status::success();
}
