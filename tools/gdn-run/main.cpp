//===- main.cpp - gdn-run: compile a GDN kernel, run it, check it ---------===//
//
// With no argument: the built-in default problem (Qwen3-Next heads, a paged
// pool with prefixes) on the best backend present, checked against the
// float64 reference. See `gdn-run --help` and the README.
//
//===----------------------------------------------------------------------===//

#include "gdn/Driver/AutoSchedule.h"
#include "gdn/Driver/Check.h"
#include "gdn/Driver/Launch.h"
#include "gdn/Driver/Problem.h"

#include "Backends.h"
#include "gdn/Runtime/Artifact.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#ifndef GDN_KERNELS_DIR
#define GDN_KERNELS_DIR "kernels"
#endif

using namespace gdn;
using namespace gdn::run;

namespace {

constexpr int kExitFail = 1;    // ran, but outside tolerance
constexpr int kExitRefused = 2; // bad arguments or inputs: nothing ran

struct Options {
  std::string backend = "auto";
  std::string kernel = "gdn_chunked";
  std::string kernelsDir;
  std::string emit;
  std::string outputFile;
  bool printIRAfterAll = false;
  std::string inputs, outputs, saveInputs;
  bool check = false;
  CallFlags flags;
  double scale = 0;
  std::string gateDomain = "linear";
  GenConfig gen = defaultConfig();
  std::string interface = "paged";
  std::string dtype = "bf16";
  std::string stateDtype = "f32";
  int64_t headDim = 0;
  uint64_t seed = 0;
  int threads = 0;
  double tolerance = 5e-3;
  std::string artifactsDir;
  int warmup = 3, repeat = 20;
  mlir::gdn::GPUCodegenOptions gpu;
  std::string prefetch = mlir::gdn::GPUCodegenOptions().prefetch ? "next-chunk" : "none";
  bool prefetchGiven = false; // --prefetch on the command line
  std::string schedule;
  bool generated = true;   // a random problem (no --inputs)
  bool noCheck = false;    // --no-check
  // Differential runs: the same inputs under other schedules or another
  // kernel file, compared with the first run.
  std::vector<std::string> compareSchedules;
  std::string referenceKernel;
};

/// Another compilation of the call to compare with the main run.
struct Variant {
  std::string label; // "schedule split-seq", "kernel FILE"
  BackendOptions options;
};

/// A finished run's exit status, or a refusal's message.
struct Outcome {
  int status = 0;
  std::string refusal;
  static Outcome refused(const std::string &message) {
    return {kExitRefused, message};
  }
};

int refuse(const std::string &message) {
  std::fprintf(stderr, "gdn-run: error: %s\n", message.c_str());
  return kExitRefused;
}

std::string kernelPath(const Options &o, const std::string &k) {
  if (k.size() > 5 && k.substr(k.size() - 5) == ".mlir")
    return k;
  std::string dir = o.kernelsDir;
  if (dir.empty()) {
    const char *env = std::getenv("GDN_KERNELS_DIR");
    dir = env ? env : GDN_KERNELS_DIR;
  }
  return dir + "/" + k + ".mlir";
}

std::string describe(const Problem &p) {
  std::ostringstream s;
  const GdnDims &d = p.dims;
  s << (p.interface == Interface::Pool ? "pool" : "paged")
    << " interface, B=" << p.batch() << " sequences, T=" << d.T
    << " new tokens, H=" << d.H << " HV=" << d.HV() << " K=" << d.K
    << " V=" << d.V << " " << dtypeName(p.tensors.at("q").dtype) << ", pool "
    << p.tensors.at("state_pool").shape[0] << " rows";
  if (p.interface == Interface::Paged) {
    s << ", page_size " << p.flags.pageSize << ", gate "
      << (p.flags.useGateInKernel ? "raw (in kernel)"
          : p.flags.gateDomain == GateDomain::Log ? "log"
                                                  : "linear")
      << (p.flags.betaIsLogit ? ", beta logit" : "")
      << (p.flags.qkL2norm ? ", l2norm" : "");
  }
  return s.str();
}

/// Reads the command line into `o`; returns an exit status when the run
/// ends here (--help, a parse error, contradictory flags).
std::optional<int> parseCommandLine(int argc, char **argv, Options &o) {
  CLI::App app{"gdn-run: compile a chunked Gated DeltaNet prefill kernel, run "
               "it and check it against the float64 reference.\nWith no "
               "arguments: the built-in default problem."};
  app.add_option("--backend", o.backend, "cpu, cuda, or auto (cuda when "
                 "available, else cpu)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  app.add_option("--kernel", o.kernel, "kernel NAME (in the kernels directory) "
                 "or FILE.mlir")->capture_default_str();
  app.add_option("--kernels-dir", o.kernelsDir, "where kernel NAMEs are found "
                 "(default: $GDN_KERNELS_DIR or the source tree's kernels/)");
  app.add_option("--schedule", o.schedule, "fusion schedule: fused "
                 "(one kernel, state on chip), staged (prepare / "
                 "state / output kernels, fp32 intermediates), staged-bf16, "
                 "split-seq (segments in parallel, combined), auto (picked "
                 "per call from the programs, the longest sequence and the "
                 "GPU's SMs), a schedule FILE or a schedule text such as "
                 "\"fused v-block=64\" (docs/Schedules.md); default: "
                 "$GDN_SCHEDULE, else auto for the GPU (a cuda run, --emit "
                 "ptx or artifact) and fused for the CPU");
  app.add_option("--emit", o.emit, "print the compiled kernel instead of "
                 "running it: tile (the specialised tile program), scheduled "
                 "(its kernels after the schedule), mlir (LLVM dialect, CPU), "
                 "llvm (LLVM IR, CPU), ptx (GPU), artifact (PTX + "
                 "manifest.json into the directory -o)")
      ->check(CLI::IsMember({"tile", "scheduled", "mlir", "llvm", "ptx",
                             "artifact"}));
  app.add_option("-o", o.outputFile, "with --emit: write to FILE (a directory "
                 "for artifact)");
  app.add_option("--artifacts", o.artifactsDir, "cuda: run the PTX artifact "
                 "in DIR (or DIR/k<K>_v<V>_<dtype>) instead of compiling");
  app.add_option("--chip", o.gpu.chip, "cuda: target architecture")
      ->capture_default_str();
  app.add_option("--mma", o.gpu.mma, "cuda: tensor-core operand precision: "
                 "auto (f16 for f16 inputs, else bf16), bf16, f16 or tf32 "
                 "(fp32 accumulation either way)")
      ->check(CLI::IsMember({"auto", "bf16", "f16", "tf32"}))
      ->capture_default_str();
  app.add_option("--warpgroups", o.gpu.warpgroups,
                 "cuda: warpgroups per block, 1 or 2 (2 splits every "
                 "matmul's N between them: half the registers per thread); "
                 "a schedule's own warpgroups= wins")
      ->check(CLI::Range(1, 2))->capture_default_str();
  CLI::Option *prefetchOption = app.add_option(
      "--prefetch", o.prefetch,
      "cuda, when compiling: next-chunk (each chunk loop asks for the "
      "next chunk's input tiles in L2 while the current one computes) or "
      "none (for every schedule; a schedule's own prefetch=none, as auto's "
      "split-seq first-segment=run picks have, leaves it out of that "
      "schedule's kernels either way)");
  prefetchOption
      ->check(CLI::IsMember({"next-chunk", "none"}))->capture_default_str();
  app.add_option("--warmup", o.warmup, "cuda: untimed launches before timing")
      ->capture_default_str();
  app.add_option("--repeat", o.repeat, "cuda: timed launches (median "
                 "reported)")->capture_default_str();
  app.add_flag("--print-ir-after-all", o.printIRAfterAll,
               "print the IR after every pass of the pipeline to stderr");
  app.add_option("--inputs", o.inputs, "run on the tensors of this "
                 ".safetensors file")->check(CLI::ExistingFile);
  app.add_option("--outputs", o.outputs, "write o and the updated state_pool "
                 "to this .safetensors file");
  app.add_flag("--check", o.check, "evaluate the float64 reference and "
               "compare (always on without --inputs)");
  app.add_flag("--no-check", o.noCheck, "random problems: skip the reference "
               "(timing runs of large shapes)");
  app.add_option("--compare-schedules", o.compareSchedules,
                 "run the kernel under each of these schedules (comma "
                 "separated; the first is the main run) on the same inputs "
                 "and compare every later one with the first: o and the "
                 "written state pages within --tolerance (relative L2)")
      ->delimiter(',');
  app.add_option("--reference-kernel", o.referenceKernel,
                 "also run this kernel (NAME or FILE.mlir) under the same "
                 "schedule on the same inputs and compare --kernel with it "
                 "(o and the written state pages within --tolerance)");
  app.add_option("--tolerance", o.tolerance, "relative L2 error bound")
      ->capture_default_str();
  // Scalars of the call.
  app.add_option("--page-size", o.flags.pageSize, "paged interface: tokens "
                 "per page, a multiple of 64")->capture_default_str();
  app.add_option("--chunk-size", o.flags.chunkSize,
                 "tokens per chunk: 32, 64 or 128 (default: the schedule's "
                 "chunk=, else 64; the GPU takes 64)");
  auto *scaleOpt = app.add_option("--scale", o.scale, "multiplies q (default "
                                  "K^-0.5)");
  auto *domainOpt = app.add_option("--gate-domain", o.gateDomain, "paged "
                                   "interface: g given as log or linear "
                                   "(alpha)")
                        ->check(CLI::IsMember({"log", "linear"}));
  auto *gateInKernel = app.add_flag("--use-gate-in-kernel,!--no-use-gate-in-kernel",
                                    o.flags.useGateInKernel,
                                    "paged: g holds `a`; the kernel computes "
                                    "-exp(A_log) softplus(a + dt_bias)");
  auto *logit = app.add_flag("--beta-is-logit,!--no-beta-is-logit",
                             o.flags.betaIsLogit, "beta passes through sigmoid");
  auto *l2 = app.add_flag("--qk-l2norm,!--no-qk-l2norm", o.flags.qkL2norm,
                          "l2-normalise q and k rows in the kernel");
  // Random problems.
  app.add_option("--interface", o.interface, "random problem: pool or paged")
      ->check(CLI::IsMember({"pool", "paged"}))->capture_default_str();
  auto *seqlensOpt = app.add_option("--seqlens", o.gen.seqlens, "random problem: new tokens per "
                 "sequence")->delimiter(',');
  auto *prefixesOpt = app.add_option("--prefixes", o.gen.prefixes, "random paged problem: prefix "
                 "tokens per sequence")->delimiter(',');
  app.add_option("--heads", o.gen.H, "random problem: q/k heads H")
      ->capture_default_str();
  app.add_option("--value-heads", o.gen.HV, "random problem: value heads HV "
                 "(a multiple of H)")->capture_default_str();
  app.add_option("--head-dim", o.headDim, "random problem: K = V");
  app.add_option("--head-dim-k", o.gen.K, "random problem: K")
      ->capture_default_str();
  app.add_option("--head-dim-v", o.gen.V, "random problem: V")
      ->capture_default_str();
  app.add_option("--dtype", o.dtype, "random problem: bf16 or f16")
      ->check(CLI::IsMember({"bf16", "f16"}))->capture_default_str();
  app.add_option("--state-dtype", o.stateDtype, "random problem: the state "
                 "pool's storage, f32, or bf16 / f16 read and written by the "
                 "kernels in place (computed in fp32)")
      ->check(CLI::IsMember({"f32", "bf16", "f16"}))->capture_default_str();
  app.add_option("--gate", o.gen.gate, "random problem: raw (gate in kernel), "
                 "log or linear")->check(CLI::IsMember({"raw", "log", "linear"}))
      ->capture_default_str();
  app.add_option("--max-decay", o.gen.maxDecay, "random log / linear gates: g "
                 "uniform in [-X, 0]")->capture_default_str();
  app.add_option("--gate-scale", o.gen.gateScale, "random raw gates: a ~ "
                 "N(0, X)")->capture_default_str();
  app.add_option("--beta-value", o.gen.betaValue, "random problem: every beta "
                 "is X (with --no-beta-is-logit)");
  app.add_option("--qk-scale", o.gen.qkScale, "random problem: q and k times X")
      ->capture_default_str();
  app.add_option("--zero-qk-every", o.gen.zeroQkEvery, "random problem: q / k "
                 "rows of every N-th token are zero");
  app.add_option("--zero-alpha-every", o.gen.zeroAlphaEvery, "random linear "
                 "gates: alpha = 0 (a full reset) every N-th token");
  bool noShuffle = false;
  app.add_flag("--no-shuffle-pages", noShuffle, "random paged problem: page "
               "ids in order");
  app.add_flag("--shared-prefix", o.gen.sharedPrefix, "random paged problem: "
               "sequences 0 and 1 share their full prefix pages");
  app.add_option("--seed", o.seed, "random problem seed (default: fresh, "
                 "printed)");
  app.add_option("--save-inputs", o.saveInputs, "write the random problem's "
                 "tensors to this .safetensors file");
  app.add_option("--threads", o.threads, "CPU threads (default: all cores)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : kExitRefused;
  }

  // Flags of the call. Random problems default to the Qwen3-Next setting:
  // l2norm and beta logits in the kernel.
  o.generated = o.inputs.empty();
  o.prefetchGiven = prefetchOption->count() > 0;
  o.gpu.prefetch = o.prefetch == "next-chunk";
  if (scaleOpt->count())
    o.flags.scale = o.scale;
  o.flags.gateDomain = o.gateDomain == "log" ? GateDomain::Log : GateDomain::Linear;
  if (o.generated) {
    if (!l2->count())
      o.flags.qkL2norm = true;
    if (!logit->count())
      o.flags.betaIsLogit = true;
    if (gateInKernel->count() || domainOpt->count())
      return refuse("--use-gate-in-kernel / --gate-domain describe --inputs; "
                    "for a random problem use --gate raw|log|linear");
    o.gen.interface = o.interface == "pool" ? Interface::Pool : Interface::Paged;
    o.gen.dtype = o.dtype == "f16" ? DType::F16 : DType::BF16;
    o.gen.stateDtype = o.stateDtype == "bf16" ? DType::BF16
                       : o.stateDtype == "f16" ? DType::F16
                                               : DType::F32;
    o.gen.shufflePages = !noShuffle;
    // New lengths without prefixes: no prefixes (not the default problem's).
    if (seqlensOpt->count() && !prefixesOpt->count())
      o.gen.prefixes.clear();
    if (o.headDim)
      o.gen.K = o.gen.V = o.headDim;
  }
  if (o.prefetchGiven && !o.artifactsDir.empty())
    return refuse("--prefetch and --artifacts: an artifact's kernels were "
                  "compiled with or without the prefetch already");
  const bool differential =
      !o.compareSchedules.empty() || !o.referenceKernel.empty();
  if (!o.compareSchedules.empty() && !o.schedule.empty())
    return refuse("--compare-schedules and --schedule: the first schedule "
                  "of --compare-schedules is the main run's");
  if (o.compareSchedules.size() == 1)
    return refuse("--compare-schedules needs two schedules or more, got '" +
                  o.compareSchedules[0] + "'");
  if (differential && (!o.artifactsDir.empty() || !o.emit.empty()))
    return refuse(std::string("--compare-schedules / --reference-kernel "
                              "compile the kernels they compare; they do "
                              "not go with ") +
                  (o.emit.empty() ? "--artifacts" : "--emit"));
  if (!o.schedule.empty() && !o.artifactsDir.empty())
    return refuse("--schedule and --artifacts: an artifact's schedule was "
                  "fixed when it was compiled (see its manifest.json; a set "
                  "built with --schedule auto picks per call)");
  return std::nullopt;
}

/// The problem: fresh random inputs (`seedLine` says how to get them
/// again) or the tensors of --inputs; validated either way.
Status loadProblem(const Options &o, Problem &problem, std::string &seedLine) {
  if (o.generated) {
    uint64_t seed = o.seed ? o.seed : std::random_device{}();
    std::mt19937_64 rng(seed);
    if (Status s = generateProblem(o.gen, o.flags, rng, problem); !s.ok())
      return s;
    seedLine = "problem: random, seed " + std::to_string(seed) + "\n";
    if (!o.saveInputs.empty())
      if (Status s = writeSafetensors(o.saveInputs, problem.tensors); !s.ok())
        return s;
  } else {
    problem.flags = o.flags;
    if (Status s = readSafetensors(o.inputs, problem.tensors); !s.ok())
      return s;
  }
  if (Status s = validateProblem(problem); !s.ok())
    return s;
  return checkGateValues(problem);
}

/// Whether a CUDA device is usable here; asked once (it creates a context).
bool cudaHere() {
  static std::optional<bool> have;
  if (!have) {
    std::string why;
    have = cudaAvailable(why);
  }
  return *have;
}

/// The schedule the user asked for: --schedule, else $GDN_SCHEDULE, else
/// auto for the GPU and fused for the CPU (which runs one program per core
/// either way); empty with --artifacts (the artifact fixed it).
std::string requestedSchedule(const Options &o) {
  if (!o.artifactsDir.empty())
    return "";
  if (!o.schedule.empty())
    return o.schedule;
  if (!o.compareSchedules.empty())
    return o.compareSchedules[0];
  // The test matrix runs under every schedule through the environment.
  if (const char *env = std::getenv("GDN_SCHEDULE"); env && *env)
    return env;
  bool forGpu = o.emit.empty()
                    ? o.backend == "cuda" || (o.backend == "auto" && cudaHere())
                    : o.emit == "ptx" || o.emit == "artifact";
  return forGpu ? kAutoSchedule : "fused";
}

/// Resolves auto for this call (docs/Schedules.md) on the device's SMs,
/// for a schedule asked for or an artifact set built with auto (auto.json).
ResolvedSchedule resolveForThisDevice(const Options &o,
                                      const ScheduleRequest &request,
                                      const Problem &problem) {
  int64_t sms = request.isAuto && o.backend != "cpu" ? cudaMultiprocessors() : 0;
  return resolveSchedule(request, problem, sms);
}

/// --emit artifact --schedule auto: one artifact per schedule the rule may
/// pick for this shape, and the set's index.
Outcome emitAutoSet(const Options &o, BackendOptions backend,
                    const KernelShape &shape) {
  if (o.outputFile.empty())
    return Outcome::refused("--emit artifact needs -o DIR");
  std::vector<std::pair<std::string, std::string>> built;
  for (const AutoCandidate &c : autoCandidates()) {
    if (!candidateApplies(c, shape.K, shape.V))
      continue; // the rule never picks it for this shape
    backend.schedule = candidateSchedule(c);
    Artifact artifact;
    if (Status s = gpuArtifact(backend, shape, artifact); !s.ok())
      return Outcome::refused(s.message);
    if (Status s = writeArtifact(o.outputFile + "/" + c.name, artifact);
        !s.ok())
      return Outcome::refused(s.message);
    built.push_back({c.name, c.schedule});
  }
  if (Status s = writeAutoSetIndex(o.outputFile, built); !s.ok())
    return Outcome::refused(s.message);
  return {};
}

/// --emit: prints (or writes to -o) the kernel at a stage instead of
/// running it.
Outcome emitKernel(const Options &o, const BackendOptions &backend,
                   const KernelShape &shape) {
  std::string text;
  if (o.emit == "ptx" || o.emit == "artifact") {
    Artifact artifact;
    if (Status s = gpuArtifact(backend, shape, artifact); !s.ok())
      return Outcome::refused(s.message);
    if (o.emit == "artifact") {
      if (o.outputFile.empty())
        return Outcome::refused("--emit artifact needs -o DIR");
      if (Status s = writeArtifact(o.outputFile, artifact); !s.ok())
        return Outcome::refused(s.message);
      return {};
    }
    text = artifact.ptx;
  } else if (Status s = emitCpu(backend, shape, o.emit, text); !s.ok()) {
    return Outcome::refused(s.message);
  }
  if (o.outputFile.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream out(o.outputFile, std::ios::binary);
    out << text;
    if (!out)
      return Outcome::refused("cannot write '" + o.outputFile + "'");
  }
  return {};
}

/// One run of the call: outputs poisoned (when checking), then the
/// kernels; the pool of `problem` is updated in place.
struct RunResult {
  HostTensor out;
  std::string timing;
  bool guardsIntact = true;
};
Status runOnce(Problem &problem, const BackendOptions &options,
               const std::string &backend, const WriteSet *poisonFor,
               RunResult &run) {
  PreparedCall call;
  if (Status s = prepareCall(problem, run.out, call); !s.ok())
    return s;
  if (poisonFor)
    poisonOutputs(run.out, problem.tensors["state_pool"], *poisonFor);
  return backend == "cuda"
             ? runCuda(options, call, run.timing, run.guardsIntact)
             : runCpu(options, call, run.timing);
}

/// Prints a check's lines; whether it passed.
bool reportCheck(const char *indent, CheckReport report, bool guardsIntact,
                 double tolerance) {
  std::printf("%so: relative L2 error %.3e\n", indent, report.oError);
  std::printf("%sstate: %lld pages written, max relative L2 error %.3e; "
              "%lld other pages unchanged\n",
              indent, (long long)report.pagesWritten, report.stateError,
              (long long)report.pagesUntouched);
  if (!guardsIntact)
    report.problems.push_back("bytes outside the buffers changed (guards)");
  for (const auto &p : report.problems)
    std::printf("  FAIL %s\n", p.c_str());
  return report.passed(tolerance);
}

/// Each variant on the inputs the main run had, compared with the main
/// run's outputs (`mainOut`, the pool in `mainAfter`) as checkOutputs
/// compares with the float64 reference. Whether all agree.
bool compareVariants(const Options &o, const Problem &original,
                     const Problem &mainAfter, const HostTensor &mainOut,
                     const std::string &mainLabel,
                     const mlir::gdn::ScheduleOptions &mainSchedule,
                     const std::vector<Variant> &variants,
                     const std::string &backend, const WriteSet &writes) {
  ReferenceResult mainResult;
  mainResult.o = mainOut.toDoubles();
  const std::vector<double> mainPool =
      mainAfter.tensors.at("state_pool").toDoubles();
  const HostTensor &poolBefore = original.tensors.at("state_pool");
  bool allAgree = true;
  for (const Variant &v : variants) {
    Problem problem = original;
    RunResult run;
    if (Status s = runOnce(problem, v.options, backend, &writes, run);
        !s.ok()) {
      std::printf("compare: %s: %s\n", v.label.c_str(), s.message.c_str());
      allAgree = false;
      continue;
    }
    std::printf("compare: %s (time: %s) against %s\n", v.label.c_str(),
                run.timing.c_str(), mainLabel.c_str());
    CheckReport report = checkOutputs(problem, run.out, poolBefore, mainPool,
                                      mainResult, writes, o.tolerance);
    bool agree = reportCheck("  ", report, run.guardsIntact, o.tolerance);
    std::printf("  %s and %s %s (tolerance %.1e)\n", mainLabel.c_str(),
                v.label.c_str(), agree ? "AGREE" : "DISAGREE", o.tolerance);
    if (!agree && (v.options.schedule.kind == "split-seq") !=
                      (mainSchedule.kind == "split-seq"))
      std::printf("  (split-seq composes each chunk's `transition` region "
                  "where the other schedules run its `step`: a kernel whose "
                  "transition does not apply what its step applies gives "
                  "different results under the two; docs/Schedules.md)\n");
    allAgree = allAgree && agree;
  }
  return allAgree;
}

/// Runs the call on `backend`, checks it against the float64 reference
/// (unless told not to), runs and compares the variants, and writes
/// --outputs.
Outcome runAndCheck(const Options &o, Problem &problem,
                    const BackendOptions &backendOptions,
                    const std::string &backend,
                    const std::vector<Variant> &variants) {
  // Reference first (it reads the untouched inputs), then poison and run.
  bool check = o.check || (o.generated && !o.noCheck);
  std::vector<double> refPool;
  ReferenceResult ref;
  WriteSet writes;
  if (Status s = expectedWrites(problem, writes); !s.ok())
    return Outcome::refused(s.message);
  HostTensor &pool = problem.tensors["state_pool"];
  if (check) {
    refPool = pool.toDoubles();
    if (Status s = referenceRun(problem, refPool, ref); !s.ok())
      return Outcome::refused("reference: " + s.message);
  }
  const Problem original = variants.empty() ? Problem() : problem;
  HostTensor poolBefore = pool;
  RunResult run;
  if (Status s = runOnce(problem, backendOptions, backend,
                         check || !variants.empty() ? &writes : nullptr, run);
      !s.ok())
    return Outcome::refused(s.message);
  std::printf("time: %s\n", run.timing.c_str());

  Outcome outcome;
  if (check) {
    CheckReport report = checkOutputs(problem, run.out, poolBefore, refPool,
                                      ref, writes, o.tolerance);
    bool ok = reportCheck("", report, run.guardsIntact, o.tolerance);
    std::printf("verdict: %s (tolerance %.1e)\n", ok ? "PASS" : "FAIL",
                o.tolerance);
    outcome.status = ok ? 0 : kExitFail;
  }
  if (!variants.empty()) {
    const std::string mainLabel =
        !o.referenceKernel.empty() ? "kernel " + backendOptions.kernelPath
                                   : "schedule " + backendOptions.schedule.str();
    bool agree = compareVariants(o, original, problem, run.out, mainLabel,
                                 backendOptions.schedule, variants, backend,
                                 writes);
    std::printf("compare verdict: %s\n", agree ? "AGREE" : "DISAGREE");
    if (!agree)
      outcome.status = kExitFail;
  }
  if (!o.outputs.empty()) {
    TensorMap outputs{{"o", run.out}, {"state_pool", pool}};
    if (Status s = writeSafetensors(o.outputs, outputs); !s.ok())
      return Outcome::refused(s.message);
  }
  return outcome;
}

/// The steps of a run: read the command line, make the problem, resolve
/// the schedule, then emit the kernel or run and check it.
Outcome runTool(Options &o, int argc, char **argv) {
  if (std::optional<int> exit = parseCommandLine(argc, argv, o))
    return {*exit, ""}; // CLI11 printed what it had to say
  Problem problem;
  std::string seedLine; // printed once we know stdout is not an --emit
  if (Status s = loadProblem(o, problem, seedLine); !s.ok())
    return Outcome::refused(s.message);

  BackendOptions backendOptions;
  backendOptions.kernelPath = kernelPath(o, o.kernel);
  backendOptions.artifactsDir = o.artifactsDir;
  backendOptions.printIRAfterAll = o.printIRAfterAll;
  backendOptions.threads =
      o.threads > 0 ? o.threads
                    : std::max(1u, std::thread::hardware_concurrency());
  backendOptions.warmup = o.warmup;
  backendOptions.repeat = o.repeat;
  backendOptions.gpu = o.gpu;

  // The schedule, parsed once; auto resolved for this call. An artifact
  // set built with auto (auto.json) is resolved the same way.
  ScheduleRequest request;
  if (std::string spec = requestedSchedule(o); !spec.empty()) {
    std::string error;
    if (!ScheduleRequest::parse(spec, request, error))
      return Outcome::refused(error);
  }
  if (Status s = bindChunkSize(problem, request); !s.ok())
    return Outcome::refused(s.message);
  const KernelShape shape = shapeOf(problem);
  if (request.isAuto && o.emit == "artifact")
    return emitAutoSet(o, backendOptions, shape);
  std::string autoLine;
  if (o.artifactsDir.empty()) {
    ResolvedSchedule resolved = resolveForThisDevice(o, request, problem);
    backendOptions.schedule = resolved.schedule;
    autoLine = resolved.line;
  } else {
    std::string dir;
    bool autoSet = false;
    locateArtifact(o.artifactsDir, shape, dir, autoSet);
    if (autoSet) {
      ResolvedSchedule resolved = resolveForThisDevice(
          o, ScheduleRequest::automatic(), problem);
      if (Status s = pickFromAutoSet(dir, resolved.pick->name,
                                     resolved.pick->schedule,
                                     backendOptions.artifactsDir);
          !s.ok())
        return Outcome::refused(s.message);
      autoLine = resolved.line;
    }
  }

  if (!o.emit.empty()) {
    if (!autoLine.empty())
      std::fprintf(stderr, "%s\n", autoLine.c_str());
    return emitKernel(o, backendOptions, shape);
  }

  // Backend: cuda where a device is usable (or asked for), else cpu.
  std::string backend = o.backend;
  if (backend == "auto")
    backend = cudaHere() ? "cuda" : "cpu";
  if (backend == "cpu" && !canCompile())
    return Outcome::refused(
        "this gdn-run is a runtime-only build: it runs artifacts on a GPU "
        "only (--backend cuda --artifacts DIR)");

  std::fputs(seedLine.c_str(), stdout);
  std::printf("problem: %s\n", describe(problem).c_str());
  std::printf("kernel: %s, backend %s\n",
              o.artifactsDir.empty() ? backendOptions.kernelPath.c_str()
                                     : backendOptions.artifactsDir.c_str(),
              backend.c_str());
  if (!autoLine.empty())
    std::printf("%s\n", autoLine.c_str());
  // Differential runs: the other schedules, or the reference kernel under
  // the main run's schedule.
  std::vector<Variant> variants;
  for (size_t i = 1; i < o.compareSchedules.size(); ++i) {
    ScheduleRequest other;
    std::string error;
    if (!ScheduleRequest::parse(o.compareSchedules[i], other, error))
      return Outcome::refused(error);
    Variant v{"", backendOptions};
    v.options.schedule = resolveForThisDevice(o, other, problem).schedule;
    v.label = "schedule " + v.options.schedule.str();
    variants.push_back(v);
  }
  if (!o.referenceKernel.empty()) {
    Variant v{"", backendOptions};
    v.options.kernelPath = kernelPath(o, o.referenceKernel);
    v.label = "kernel " + v.options.kernelPath;
    variants.push_back(v);
  }
  return runAndCheck(o, problem, backendOptions, backend, variants);
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  Outcome outcome = runTool(o, argc, argv);
  if (!outcome.refusal.empty())
    return refuse(outcome.refusal);
  return outcome.status;
}
