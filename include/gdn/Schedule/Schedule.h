//===- Schedule.h - fusion schedules of the chunk scan ----------*- C++ -*-===//
//
// A schedule says how `gdn.chunk_scan` becomes kernels: which stages share
// a kernel, where the values between them live, and how a sequence is
// split over blocks. It is chosen by name or file (`--schedule NAME|FILE`)
// and is separate from the kernel program. See docs/Schedules.md.
//
// The one parser of schedule texts (library GDNSchedule, MLIR-free): the C
// API, gdn-run and the compiler parse a schedule once and hand the parsed
// ScheduleOptions on; only gdn-opt's string pass option is parsed by the
// pass itself.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_SCHEDULE_SCHEDULE_H
#define GDN_SCHEDULE_SCHEDULE_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::gdn {

/// A parsed schedule: a kind (the C++ lowering that builds the kernels) and
/// its knobs. Text form: `<kind> [key=value]...`, `#` starts a comment.
struct ScheduleOptions {
  std::string name = "fused";       // what the user asked for (name or file)
  std::string kind = "fused";       // fused | staged | split-seq | ...
  std::string intermediates = "f32"; // storage of values between kernels
  std::string output = "separate";  // staged: separate | with-state
  // staged, split-seq replay=load: which prepared values cross kernels.
  // "all" stores every one (split-seq: every one transition reads);
  // "solve" only those that depend on the WY solve (W, U); "products"
  // those that depend on the solve or on a gdn.matmul (also Q K^T). The
  // later kernels prepare the rest again from their inputs.
  std::string store = "all";
  int64_t segmentChunks = 16;       // split-seq: chunks per segment
  // split-seq: how replay gets each chunk's prepared values. "recompute"
  // runs the prepare stage again; "load" reads what transition stored (in
  // `intermediates`, vectors always f32).
  std::string replay = "recompute";
  // split-seq: what segment 0 does in the transition kernel. "map" composes
  // its map like every segment; "run" runs its chunks there (outputs,
  // checkpoints) from the initial state and hands replay the state it ends
  // with, so replay skips segment 0 and the program's last segment needs no
  // map.
  std::string firstSegment = "map";
  // split-seq replay=load: where the stored prepared values are made.
  // "inline": transition prepares each chunk as it composes the maps and
  // stores them. "separate": a kernel parallel over chunks prepares every
  // chunk first (FlashQLA's kkt_solve), and transition and replay load
  // them, so that the map composition holds no WY solve beside its map.
  std::string prepare = "inline";
  // staged store=solve|products: what the prepare kernel's programs are.
  // "program" runs one per program of the later kernels, each V-block of a head
  // solving for itself. "head" runs one per value head, storing the
  // solve's values that do not read the V rows (W and the inverse in
  // gdn_chunked.mlir) once for all its V-blocks; the later kernels make
  // the rest (U = Tm diag(beta) V) from them.
  std::string preparePer = "program";
  // split-seq first-segment=run: segment 0's chunks (0: segmentChunks).
  // Segment 0's chunks take longer in transition than a map's, and the
  // program's last segment, which with replay=load then prepares its own
  // values in replay, is best shorter: the lengths balance the two kernels.
  int64_t firstSegmentChunks = 0;
  // Every kind: state rows per program (a V-split). 0 keeps a value head's
  // whole V in one program; 64 gives each head V / 64 programs. The driver
  // specialises the kernel's V tiles to it (see docs/Schedules.md).
  int64_t vBlock = 0;
  // Every kind: tokens per chunk, 32, 64 or 128 (0: the call's chunk_size,
  // 64 by default). The driver specialises the kernel's chunk tiles to it;
  // a call whose chunk_size names another is refused. The GPU code
  // generator takes 64 only.
  int64_t chunk = 0;
  // Every kind, GPU only: "next-chunk" asks for chunk c + 1's input tiles
  // in L2 while chunk c computes (gdn-gpu-prefetch-next-chunk); "none"
  // leaves that out of this schedule's kernels (gdn.no_prefetch). Which
  // pays depends on the kernel: bench/RESULTS.md, 2026-12-02.
  std::string prefetch = "next-chunk";
  // Every kind, GPU only: slots of the ring that chunk loops load their
  // 16-bit token tiles (q, k, v) through. 1 loads them as the chunk needs
  // them (LDG); N >= 2 brings them in by TMA into an N-slot shared-memory
  // ring, N chunks ahead, completing on mbarriers
  // (gdn-gpu-pipeline-loads, kernels marked gdn.load_stages).
  int64_t stages = 1;
  // Every kind, GPU only: warpgroups (128 threads) a block, as Triton's
  // num_warps is a config's. 0 takes the code generator's (gdn-run
  // --warpgroups, 2 by default); 1 or 2 wins over it for this schedule's
  // kernels. One warpgroup holds twice the registers a thread, so two
  // blocks share an SM where two warpgroups' would not (K = V = 64:
  // docs/Schedules.md).
  int64_t warpgroups = 0;

  /// The canonical text form, e.g. "staged intermediates=f32 output=separate".
  std::string str() const;
};

/// A kind a schedule can name. Each is one lowering of gdn-schedule
/// (lib/Transforms/Schedule/ScheduleKinds.cpp maps the name to it).
struct ScheduleKind {
  const char *name;
  const char *summary;
};
const std::vector<ScheduleKind> &scheduleKinds();
/// "fused, staged, split-seq".
std::string scheduleKindList();

/// The built-in schedules: name, text, one-line description.
struct NamedSchedule {
  const char *name;
  const char *text;
  const char *summary;
};
const std::vector<NamedSchedule> &builtinSchedules();

/// Parses `spec`: a built-in name, the path of a file holding a schedule
/// text, or a schedule text itself (e.g. "fused v-block=64"). On failure
/// returns false and sets `error` to a message naming the problem (unknown
/// name, unreadable file, unknown key, bad value). "auto" is refused: it is
/// resolved per call first (gdn/Driver/AutoSchedule.h, resolveSchedule).
bool parseSchedule(const std::string &spec, ScheduleOptions &out,
                   std::string &error);
/// Parses a schedule text (what a schedule file holds).
bool parseScheduleText(const std::string &text, const std::string &origin,
                       ScheduleOptions &out, std::string &error);

/// The schedule `gdn-opt --schedule` chose (empty: fused); the pipelines use
/// it when their own `schedule` option is empty.
void setDefaultSchedule(const std::string &spec);
const std::string &defaultSchedule();

/// A help paragraph listing the built-in schedules and kinds.
std::string scheduleHelp();

} // namespace mlir::gdn

#endif // GDN_SCHEDULE_SCHEDULE_H
