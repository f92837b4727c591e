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
  int64_t headDim = 0;
  uint64_t seed = 0;
  int threads = 0;
  double tolerance = 5e-3;
  std::string artifactsDir;
  int warmup = 3, repeat = 20;
  mlir::gdn::GPUCodegenOptions gpu;
  std::string prefetch = mlir::gdn::GPUCodegenOptions().prefetch ? "next-chunk" : "none";
  std::string schedule;
};

int refuse(const std::string &message) {
  std::fprintf(stderr, "gdn-run: error: %s\n", message.c_str());
  return kExitRefused;
}

std::string kernelPath(const Options &o) {
  const std::string &k = o.kernel;
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

} // namespace

int main(int argc, char **argv) {
  Options o;
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
  app.add_option("--mma", o.gpu.mma, "cuda: tensor-core operand precision, "
                 "bf16 or tf32 (fp32 accumulation either way)")
      ->check(CLI::IsMember({"tf32", "bf16"}))->capture_default_str();
  app.add_option("--warpgroups", o.gpu.warpgroups,
                 "cuda: warpgroups per block, 1 or 2 (2 splits every "
                 "matmul's N between them: half the registers per thread)")
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
  bool noCheck = false;
  app.add_flag("--no-check", noCheck, "random problems: skip the reference "
               "(timing runs of large shapes)");
  app.add_option("--tolerance", o.tolerance, "relative L2 error bound")
      ->capture_default_str();
  // Scalars of the call.
  app.add_option("--page-size", o.flags.pageSize, "paged interface: tokens "
                 "per page, a multiple of 64")->capture_default_str();
  app.add_option("--chunk-size", o.flags.chunkSize, "tokens per chunk (64)")
      ->capture_default_str();
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
  bool generated = o.inputs.empty();
  if (scaleOpt->count())
    o.flags.scale = o.scale;
  o.flags.gateDomain = o.gateDomain == "log" ? GateDomain::Log : GateDomain::Linear;
  if (generated) {
    if (!l2->count())
      o.flags.qkL2norm = true;
    if (!logit->count())
      o.flags.betaIsLogit = true;
    if (gateInKernel->count() || domainOpt->count())
      return refuse("--use-gate-in-kernel / --gate-domain describe --inputs; "
                    "for a random problem use --gate raw|log|linear");
    o.gen.interface = o.interface == "pool" ? Interface::Pool : Interface::Paged;
    o.gen.dtype = o.dtype == "f16" ? DType::F16 : DType::BF16;
    o.gen.shufflePages = !noShuffle;
    // New lengths without prefixes: no prefixes (not the default problem's).
    if (seqlensOpt->count() && !prefixesOpt->count())
      o.gen.prefixes.clear();
    if (o.headDim)
      o.gen.K = o.gen.V = o.headDim;
  }

  // The problem: from a file or fresh random inputs.
  Problem problem;
  std::string seedLine; // printed once we know stdout is not an --emit
  if (generated) {
    uint64_t seed = o.seed ? o.seed : std::random_device{}();
    std::mt19937_64 rng(seed);
    if (Status s = generateProblem(o.gen, o.flags, rng, problem); !s.ok())
      return refuse(s.message);
    seedLine = "problem: random, seed " + std::to_string(seed) + "\n";
    if (!o.saveInputs.empty())
      if (Status s = writeSafetensors(o.saveInputs, problem.tensors); !s.ok())
        return refuse(s.message);
  } else {
    problem.flags = o.flags;
    if (Status s = readSafetensors(o.inputs, problem.tensors); !s.ok())
      return refuse(s.message);
  }
  if (Status s = validateProblem(problem); !s.ok())
    return refuse(s.message);
  if (Status s = checkGateValues(problem); !s.ok())
    return refuse(s.message);

  // Backend: cuda where a device is usable (or asked for), else cpu.
  BackendOptions backendOptions;
  backendOptions.kernelPath = kernelPath(o);
  backendOptions.artifactsDir = o.artifactsDir;
  backendOptions.printIRAfterAll = o.printIRAfterAll;
  backendOptions.threads =
      o.threads > 0 ? o.threads
                    : std::max(1u, std::thread::hardware_concurrency());
  backendOptions.warmup = o.warmup;
  backendOptions.repeat = o.repeat;
  o.gpu.prefetch = o.prefetch == "next-chunk";
  backendOptions.gpu = o.gpu;
  if (prefetchOption->count() > 0 && !o.artifactsDir.empty())
    return refuse("--prefetch and --artifacts: an artifact's kernels were "
                  "compiled with or without the prefetch already");
  if (!o.schedule.empty() && !o.artifactsDir.empty())
    return refuse("--schedule and --artifacts: an artifact's schedule was "
                  "fixed when it was compiled (see its manifest.json; a set "
                  "built with --schedule auto picks per call)");
  // The test matrix runs under every schedule through the environment.
  if (const char *env = std::getenv("GDN_SCHEDULE");
      env && *env && o.schedule.empty() && o.artifactsDir.empty())
    o.schedule = env;
  // The schedule that fills a GPU depends on the call (docs/Schedules.md):
  // auto by default there; the CPU runs one program per core either way.
  std::string whyNoCuda;
  std::optional<bool> haveCuda; // asked once: it creates a CUDA context
  auto cudaHere = [&]() {
    if (!haveCuda)
      haveCuda = cudaAvailable(whyNoCuda);
    return *haveCuda;
  };
  if (o.schedule.empty() && o.artifactsDir.empty()) {
    bool forGpu = o.emit.empty()
                      ? o.backend == "cuda" || (o.backend == "auto" && cudaHere())
                      : o.emit == "ptx" || o.emit == "artifact";
    o.schedule = forGpu ? kAutoSchedule : "fused";
  }
  backendOptions.schedule = o.schedule;
  const KernelShape shape = shapeOf(problem);

  // --schedule auto: the rule picks a schedule for this call from the
  // device's SM count (docs/Schedules.md). An artifact set built with it
  // (auto.json) is resolved the same way.
  auto pickSchedule = [&]() {
    int64_t sms = o.backend == "cpu" ? 0 : cudaMultiprocessors();
    bool nominal = sms == 0;
    ScheduleChoice choice =
        chooseSchedule(workloadOf(problem), nominal ? kNominalSMs : sms);
    std::string line = std::string("schedule: auto -> ") +
                       choice.pick->schedule + " (" + choice.why +
                       (nominal ? "; no GPU asked, an H200's SMs assumed" : "") +
                       ")";
    return std::make_pair(choice.pick, line);
  };
  std::string autoLine;
  if (o.schedule == kAutoSchedule && o.emit != "artifact") {
    auto [pick, line] = pickSchedule();
    backendOptions.schedule = pick->schedule;
    autoLine = line;
  }
  if (!o.artifactsDir.empty()) {
    std::string dir;
    bool autoSet = false;
    locateArtifact(o.artifactsDir, shape, dir, autoSet);
    if (autoSet) {
      auto [pick, line] = pickSchedule();
      if (Status s = pickFromAutoSet(dir, pick->name, pick->schedule,
                                     backendOptions.artifactsDir);
          !s.ok())
        return refuse(s.message);
      autoLine = line;
    }
  }

  if (!o.emit.empty()) {
    std::string text;
    if (o.emit == "artifact" && o.schedule == kAutoSchedule) {
      // One artifact per schedule auto may pick, and the index.
      if (o.outputFile.empty())
        return refuse("--emit artifact needs -o DIR");
      std::vector<std::pair<std::string, std::string>> built;
      for (const AutoCandidate &c : autoCandidates()) {
        if (!candidateApplies(c, shape.V))
          continue; // the rule never picks it for this shape
        backendOptions.schedule = c.schedule;
        Artifact artifact;
        if (Status s = gpuArtifact(backendOptions, shape, artifact); !s.ok())
          return refuse(s.message);
        if (Status s = writeArtifact(o.outputFile + "/" + c.name, artifact);
            !s.ok())
          return refuse(s.message);
        built.push_back({c.name, c.schedule});
      }
      if (Status s = writeAutoSetIndex(o.outputFile, built); !s.ok())
        return refuse(s.message);
      return 0;
    }
    if (!autoLine.empty())
      std::fprintf(stderr, "%s\n", autoLine.c_str());
    if (o.emit == "ptx" || o.emit == "artifact") {
      Artifact artifact;
      if (Status s = gpuArtifact(backendOptions, shape, artifact); !s.ok())
        return refuse(s.message);
      if (o.emit == "artifact") {
        if (o.outputFile.empty())
          return refuse("--emit artifact needs -o DIR");
        if (Status s = writeArtifact(o.outputFile, artifact); !s.ok())
          return refuse(s.message);
        return 0;
      }
      text = artifact.ptx;
    } else if (Status s = emitCpu(backendOptions, shape, o.emit, text);
               !s.ok()) {
      return refuse(s.message);
    }
    if (o.outputFile.empty()) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      std::ofstream out(o.outputFile, std::ios::binary);
      out << text;
      if (!out)
        return refuse("cannot write '" + o.outputFile + "'");
    }
    return 0;
  }

  std::string backend = o.backend;
  if (backend == "auto")
    backend = cudaHere() ? "cuda" : "cpu";
  if (backend == "cpu" && !canCompile())
    return refuse("this gdn-run is a runtime-only build: it runs artifacts on "
                  "a GPU only (--backend cuda --artifacts DIR)");

  std::fputs(seedLine.c_str(), stdout);
  std::printf("problem: %s\n", describe(problem).c_str());
  std::printf("kernel: %s, backend %s\n",
              o.artifactsDir.empty() ? backendOptions.kernelPath.c_str()
                                     : backendOptions.artifactsDir.c_str(),
              backend.c_str());
  if (!autoLine.empty())
    std::printf("%s\n", autoLine.c_str());

  // Reference first (it reads the untouched inputs), then poison and run.
  bool check = o.check || (generated && !noCheck);
  std::vector<double> refPool;
  ReferenceResult ref;
  WriteSet writes;
  if (Status s = expectedWrites(problem, writes); !s.ok())
    return refuse(s.message);
  HostTensor &pool = problem.tensors["state_pool"];
  if (check) {
    refPool = pool.toDoubles();
    if (Status s = referenceRun(problem, refPool, ref); !s.ok())
      return refuse("reference: " + s.message);
  }
  HostTensor poolBefore = pool;
  HostTensor out;
  PreparedCall call;
  if (Status s = prepareCall(problem, out, call); !s.ok())
    return refuse(s.message);
  if (check)
    poisonOutputs(out, pool, writes);

  std::string timing;
  bool guardsIntact = true;
  Status ran = backend == "cuda"
                   ? runCuda(backendOptions, call, timing, guardsIntact)
                   : runCpu(backendOptions, call, timing);
  if (!ran.ok())
    return refuse(ran.message);
  std::printf("time: %s\n", timing.c_str());

  int status = 0;
  if (check) {
    CheckReport report = checkOutputs(problem, out, poolBefore, refPool, ref,
                                      writes, o.tolerance);
    std::printf("o: relative L2 error %.3e\n", report.oError);
    std::printf("state: %lld pages written, max relative L2 error %.3e; "
                "%lld other pages unchanged\n",
                (long long)report.pagesWritten, report.stateError,
                (long long)report.pagesUntouched);
    for (const auto &p : report.problems)
      std::printf("  FAIL %s\n", p.c_str());
    if (!guardsIntact)
      report.problems.push_back("bytes outside the buffers changed (guards)");
    bool ok = report.passed(o.tolerance);
    std::printf("verdict: %s (tolerance %.1e)\n", ok ? "PASS" : "FAIL",
                o.tolerance);
    status = ok ? 0 : kExitFail;
  }
  if (!o.outputs.empty()) {
    TensorMap outputs{{"o", out}, {"state_pool", pool}};
    if (Status s = writeSafetensors(o.outputs, outputs); !s.ok())
      return refuse(s.message);
  }
  return status;
}
