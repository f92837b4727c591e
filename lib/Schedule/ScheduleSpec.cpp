//===- ScheduleSpec.cpp - schedule names, files and their text ------------===//

#include "gdn/Schedule/Schedule.h"

#include <fstream>
#include <sstream>

using namespace mlir::gdn;

const std::vector<NamedSchedule> &mlir::gdn::builtinSchedules() {
  static const std::vector<NamedSchedule> schedules = {
      {"fused", "fused",
       "one kernel per (value head, sequence); the state stays on chip "
       "across chunks"},
      {"staged", "staged intermediates=f32 output=separate",
       "three kernels: prepare (parallel over chunks), state (serial), "
       "output (parallel); fp32 intermediates in global memory"},
      {"staged-bf16", "staged intermediates=bf16 output=separate",
       "staged with bf16 intermediates (FLA's storage)"},
      {"split-seq", "split-seq segment-chunks=16",
       "a sequence cut into 16-chunk segments: per-segment (a, B, R) in "
       "parallel, a serial combine, then a parallel replay"},
  };
  return schedules;
}

const std::vector<ScheduleKind> &mlir::gdn::scheduleKinds() {
  // One line per kind; its lowering is registered under the same name in
  // lib/Transforms/Schedule/ScheduleKinds.cpp.
  static const std::vector<ScheduleKind> kinds = {
      {"fused", "one kernel, the scan as a loop"},
      {"staged", "prepare / state / output kernels, values in global memory"},
      {"split-seq", "segments in parallel, combined through (a, B, R)"},
  };
  return kinds;
}

std::string mlir::gdn::scheduleKindList() {
  std::string s;
  for (const ScheduleKind &k : scheduleKinds())
    s += std::string(s.empty() ? "" : ", ") + k.name;
  return s;
}

static const NamedSchedule *builtinNamed(const std::string &name) {
  for (const NamedSchedule &s : builtinSchedules())
    if (name == s.name)
      return &s;
  return nullptr;
}

static bool isScheduleKind(const std::string &name) {
  for (const ScheduleKind &k : scheduleKinds())
    if (name == k.name)
      return true;
  return false;
}

std::string ScheduleOptions::str() const {
  std::string s = kind;
  if (kind == "staged")
    s += " intermediates=" + intermediates + " output=" + output +
         (store != "all" ? " store=" + store : "") +
         (preparePer != "program" ? " prepare-per=" + preparePer : "");
  else if (kind == "split-seq") {
    s += " segment-chunks=" + std::to_string(segmentChunks);
    if (replay != "recompute")
      s += " replay=" + replay + " intermediates=" + intermediates +
           (store != "all" ? " store=" + store : "") +
           (prepare != "inline" ? " prepare=" + prepare : "");
    if (firstSegment != "map")
      s += " first-segment=" + firstSegment;
    if (firstSegmentChunks)
      s += " first-segment-chunks=" + std::to_string(firstSegmentChunks);
  }
  else if (kind != "fused")
    s += " intermediates=" + intermediates;
  if (vBlock)
    s += " v-block=" + std::to_string(vBlock);
  if (chunk && chunk != 64) // 64 is the default: one text per schedule
    s += " chunk=" + std::to_string(chunk);
  if (prefetch != "next-chunk")
    s += " prefetch=" + prefetch;
  if (stages != 1)
    s += " stages=" + std::to_string(stages);
  if (warpgroups)
    s += " warpgroups=" + std::to_string(warpgroups);
  return s;
}

/// The words of a schedule text into `o`: its kind (or a built-in's name,
/// whose text is read here first), then key=value pairs, each key appended
/// to `keys` for the checks after all words are read.
static bool parseScheduleWords(const std::string &text,
                               const std::string &origin, ScheduleOptions &o,
                               std::vector<std::string> &keys, bool &haveKind,
                               std::string &error) {
  std::istringstream lines(text);
  std::string line;
  auto fail = [&](const std::string &what) {
    error = "schedule '" + origin + "': " + what;
    return false;
  };
  // A chunk count key's value: an integer in 1..4096.
  auto parseCount = [&](const std::string &key, const std::string &value,
                        int64_t &out) {
    char *end = nullptr;
    long long n = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || n < 1 || n > 4096)
      return fail(key + "=" + value + " (expected an integer in 1..4096)");
    out = n;
    return true;
  };
  // A key that takes one of two words; `why` (may be empty) says what the
  // key decides, after the words the error names.
  auto parseChoice = [&](const std::string &key, const std::string &value,
                         const char *first, const char *second,
                         const std::string &why, std::string &out) {
    if (value != first && value != second)
      return fail(key + "=" + value + " (expected " + first + " or " +
                  second + (why.empty() ? "" : ": " + why) + ")");
    out = value;
    return true;
  };
  while (std::getline(lines, line)) {
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.resize(hash);
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      size_t eq = word.find('=');
      if (eq == std::string::npos) {
        if (haveKind)
          return fail("two kinds ('" + o.kind + "' and '" + word +
                      "'); a schedule has one kind followed by key=value");
        if (const NamedSchedule *named = builtinNamed(word);
            named && !isScheduleKind(word)) {
          // A built-in name stands for its text ("staged-bf16 v-block=64"):
          // its kind and keys, which keys after it override.
          if (!keys.empty())
            return fail("key '" + keys.front() + "' before the built-in '" +
                        word + "'; keys follow it, to override its text");
          if (!parseScheduleWords(named->text, origin, o, keys, haveKind,
                                  error))
            return false;
          continue;
        }
        if (!isScheduleKind(word))
          return fail("unknown kind '" + word + "' (known: " +
                      scheduleKindList() + ", or a built-in schedule's name)");
        o.kind = word;
        haveKind = true;
        continue;
      }
      std::string key = word.substr(0, eq), value = word.substr(eq + 1);
      keys.push_back(key);
      if (key == "intermediates") {
        if (!parseChoice(key, value, "f32", "bf16", "", o.intermediates))
          return false;
      } else if (key == "output") {
        if (!parseChoice(key, value, "separate", "with-state", "", o.output))
          return false;
      } else if (key == "store") {
        if (value != "all" && value != "solve" && value != "products")
          return fail(key + "=" + value +
                      " (expected all, solve or products: which prepared "
                      "values cross kernels: every one, those of the WY "
                      "solve, or those of a solve or a matrix product)");
        o.store = value;
      } else if (key == "prepare") {
        if (!parseChoice(key, value, "inline", "separate",
                         "whether split-seq's transition prepares the "
                         "chunks it stores, or a kernel before it does",
                         o.prepare))
          return false;
      } else if (key == "prepare-per") {
        if (!parseChoice(key, value, "program", "head",
                         "whether staged's prepare kernel runs once per "
                         "program or once per value head for all its "
                         "V-blocks",
                         o.preparePer))
          return false;
      } else if (key == "segment-chunks") {
        if (!parseCount(key, value, o.segmentChunks))
          return false;
      } else if (key == "first-segment-chunks") {
        if (!parseCount(key, value, o.firstSegmentChunks))
          return false;
      } else if (key == "replay") {
        if (!parseChoice(key, value, "recompute", "load",
                         "how split-seq's replay gets each chunk's prepared "
                         "values",
                         o.replay))
          return false;
      } else if (key == "first-segment") {
        if (!parseChoice(key, value, "map", "run",
                         "whether split-seq's segment 0 composes its map or "
                         "runs its chunks in transition",
                         o.firstSegment))
          return false;
      } else if (key == "v-block") {
        std::string rows;
        if (!parseChoice(key, value, "64", "128",
                         "state rows per program, a block of the value head "
                         "size V",
                         rows))
          return false;
        o.vBlock = std::stoll(rows);
      } else if (key == "chunk") {
        if (value != "32" && value != "64" && value != "128")
          return fail("chunk=" + value +
                      " (expected 32, 64 or 128: tokens per chunk)");
        o.chunk = std::stoll(value);
      } else if (key == "prefetch") {
        if (!parseChoice(key, value, "next-chunk", "none",
                         "whether the GPU kernels ask for the next chunk's "
                         "tiles in L2",
                         o.prefetch))
          return false;
      } else if (key == "stages") {
        if (value != "1" && value != "2" && value != "3")
          return fail("stages=" + value +
                      " (expected 1, 2 or 3: slots of the ring the GPU "
                      "kernels load token tiles through, 1 = no ring)");
        o.stages = std::stoll(value);
      } else if (key == "warpgroups") {
        if (value != "1" && value != "2")
          return fail("warpgroups=" + value +
                      " (expected 1 or 2: warpgroups of 128 threads a GPU "
                      "block)");
        o.warpgroups = std::stoll(value);
      } else {
        return fail("unknown key '" + key +
                    "' (known: intermediates, output, segment-chunks, "
                    "replay, first-segment, first-segment-chunks, prepare, "
                    "prepare-per, v-block, chunk, store, prefetch, stages, warpgroups)");
      }
    }
  }
  return true;
}

bool mlir::gdn::parseScheduleText(const std::string &text,
                                  const std::string &origin,
                                  ScheduleOptions &out, std::string &error) {
  ScheduleOptions o;
  o.name = origin;
  bool haveKind = false;
  std::vector<std::string> keys;
  if (!parseScheduleWords(text, origin, o, keys, haveKind, error))
    return false;
  auto fail = [&](const std::string &what) {
    error = "schedule '" + origin + "': " + what;
    return false;
  };
  if (!haveKind)
    return fail("no kind (known: " + scheduleKindList() + ")");
  // A key another kind reads would be ignored silently: refuse it.
  for (const std::string &key : keys) {
    bool applies = key == "v-block" || key == "chunk" || key == "prefetch" ||
                   key == "stages" || key == "warpgroups" ||
                   (o.kind == "staged" &&
                    (key == "intermediates" || key == "output" ||
                     key == "store" || key == "prepare-per")) ||
                   (o.kind == "split-seq" &&
                    (key == "segment-chunks" || key == "replay" ||
                     key == "first-segment" ||
                     (key == "first-segment-chunks" &&
                      o.firstSegment == "run") ||
                     ((key == "intermediates" || key == "store" ||
                       key == "prepare") &&
                      o.replay == "load")));
    if (!applies)
      return fail(key + "= does not apply to kind '" + o.kind + "'" +
                  ((key == "intermediates" || key == "store" ||
                    key == "prepare") &&
                           o.kind == "split-seq"
                       ? " without replay=load"
                   : key == "first-segment-chunks" && o.kind == "split-seq"
                       ? " without first-segment=run"
                       : ""));
  }
  if (o.preparePer == "head" && o.store == "all")
    return fail("prepare-per=head needs store=solve or store=products: a "
                "head's V-blocks share the values of the WY solve (and of "
                "products that do not read the V rows), and only those are "
                "stored");
  out = o;
  return true;
}

bool mlir::gdn::parseSchedule(const std::string &spec, ScheduleOptions &out,
                              std::string &error) {
  if (spec == "auto") {
    error = "schedule 'auto' is picked per call by gdn-run from the problem "
            "and the GPU (docs/Schedules.md); the pipelines need a concrete "
            "schedule";
    return false;
  }
  for (const NamedSchedule &s : builtinSchedules())
    if (spec == s.name)
      return parseScheduleText(s.text, spec, out, error);
  std::ifstream in(spec);
  // Not a name or a file: a schedule text given inline ("fused v-block=64"),
  // unless it looks like a path.
  bool looksLikePath = spec.find('/') != std::string::npos ||
                       (spec.size() > 6 && spec.substr(spec.size() - 6) == ".sched");
  if (!in && !looksLikePath && spec.find_first_of(" =") != std::string::npos)
    return parseScheduleText(spec, spec, out, error);
  if (!in) {
    std::string names;
    for (const NamedSchedule &s : builtinSchedules())
      names += std::string(names.empty() ? "" : ", ") + s.name;
    error = "schedule '" + spec + "' is neither a built-in schedule (" +
            names + ") nor a readable schedule file";
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseScheduleText(text.str(), spec, out, error);
}

static std::string &defaultSpec() {
  static std::string spec;
  return spec;
}
void mlir::gdn::setDefaultSchedule(const std::string &spec) {
  defaultSpec() = spec;
}
const std::string &mlir::gdn::defaultSchedule() { return defaultSpec(); }

std::string mlir::gdn::scheduleHelp() {
  std::string s = "a built-in schedule or a schedule file (docs/Schedules.md)."
                  " Built-in:";
  for (const NamedSchedule &n : builtinSchedules())
    s += std::string("\n  ") + n.name + ": " + n.summary;
  s += "\nKinds a schedule file may use: " + scheduleKindList() +
       "; keys: output=separate|with-state (staged), store=all|solve|products (staged, split-seq replay=load), prepare-per=program|head (staged store=solve|products: one prepare per program, or one per value head shared by its V-blocks), segment-chunks=N and "
       "replay=recompute|load, first-segment=map|run and first-segment-chunks=N (split-seq), intermediates=f32|bf16 (staged, "
       "split-seq replay=load), prepare=inline|separate (split-seq replay=load: a kernel before transition "
       "prepares every chunk), v-block=64|128 (any kind: state rows per "
       "program), chunk=32|64|128 (any kind: tokens per chunk, 64 by default; "
       "the GPU takes 64), prefetch=next-chunk|none (any kind, GPU: the L2 prefetch "
       "of the next chunk's tiles), stages=1|2|3 (any kind, GPU: TMA loads of the token "
       "tiles through a ring of that many slots; 1: none), warpgroups=1|2 (any kind, GPU: "
       "128-thread warpgroups a block; wins over --warpgroups). A schedule text may also be given inline, e.g. "
       "\"fused v-block=64\", and may start with a built-in's name, whose "
       "keys later ones override: \"staged-bf16 v-block=64\"";
  return s;
}
