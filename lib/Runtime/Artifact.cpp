//===- Artifact.cpp - read and write compiled-kernel artifacts ------------===//

#include "gdn/Runtime/Artifact.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include <cctype>
#include <fstream>
#include <sstream>
#include <filesystem>

using namespace gdn;
using json = nlohmann::json;

namespace {
const char *kindName(ParamInfo::Kind k) {
  switch (k) {
  case ParamInfo::Kind::MemRef: return "memref";
  case ParamInfo::Kind::Index: return "index";
  case ParamInfo::Kind::F32: return "f32";
  case ParamInfo::Kind::I1: return "i1";
  case ParamInfo::Kind::Scratch: return "scratch";
  case ParamInfo::Kind::TensorMap: return "tensor_map";
  }
  return "?";
}

bool parseKind(const std::string &s, ParamInfo::Kind &k) {
  for (auto c : {ParamInfo::Kind::MemRef, ParamInfo::Kind::Index,
                 ParamInfo::Kind::F32, ParamInfo::Kind::I1,
                 ParamInfo::Kind::Scratch, ParamInfo::Kind::TensorMap})
    if (s == kindName(c)) {
      k = c;
      return true;
    }
  return false;
}

/// A tensor_map parameter `jp` that follows `before` (the kernel's
/// parameters so far): it comes after the scratch or another map, and
/// describes one of the memrefs, a box dimension per memref dimension.
Status readTensorMap(const json &jp, const std::vector<ParamInfo> &before,
                     ParamInfo &p) {
  if (before.empty() || (before.back().kind != ParamInfo::Kind::Scratch &&
                         before.back().kind != ParamInfo::Kind::TensorMap))
    return Status::error("tensor maps come after the scratch parameter");
  if (!jp.contains("source") || !jp["source"].is_number_integer())
    return Status::error("key 'source' is missing or not an integer");
  p.source = jp["source"].get<int64_t>();
  if (p.source < 0 || p.source >= static_cast<int64_t>(before.size()) ||
      before[p.source].kind != ParamInfo::Kind::MemRef)
    return Status::error("source " + std::to_string(p.source) +
                         " is not a memref parameter");
  if (!jp.contains("box") || !jp["box"].is_array())
    return Status::error("key 'box' is missing or not an array");
  for (const json &d : jp["box"]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 1 ||
        d.get<int64_t>() > 256)
      return Status::error("box has a dimension outside 1 .. 256");
    p.box.push_back(d.get<int64_t>());
  }
  if (static_cast<int64_t>(p.box.size()) != before[p.source].rank)
    return Status::error("box has " + std::to_string(p.box.size()) +
                         " dimensions, its source memref " +
                         std::to_string(before[p.source].rank));
  if (!jp.contains("swizzle") || !jp["swizzle"].is_number_integer() ||
      (jp["swizzle"].get<int64_t>() != 0 &&
       jp["swizzle"].get<int64_t>() != 128))
    return Status::error("key 'swizzle' is missing or not 0 or 128");
  p.swizzle = jp["swizzle"].get<int64_t>();
  return Status::success();
}

Status readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot read '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return Status::success();
}
} // namespace

std::string Artifact::subdirFor(const KernelShape &shape) {
  std::string dt = dtypeName(shape.io);
  for (char &c : dt)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string dir = "k" + std::to_string(shape.K) + "_v" +
                    std::to_string(shape.V) + "_" + dt;
  // fp32 pools keep the plain name; 16-bit pools have their own kernels.
  if (shape.state != DType::F32) {
    std::string st = dtypeName(shape.state);
    for (char &c : st)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    dir += "_state_" + st;
  }
  if (shape.chunk != KernelShape::kDefaultChunk)
    dir += "_chunk" + std::to_string(shape.chunk);
  return dir;
}

Status gdn::writeAutoSetIndex(
    const std::string &dir,
    const std::vector<std::pair<std::string, std::string>> &candidates) {
  json list = json::object();
  for (const auto &[name, schedule] : candidates)
    list[name] = schedule;
  json index = {{"format", "gdn-auto-set-1"},
                {"rule", "docs/Schedules.md, --schedule auto"},
                {"candidates", list}};
  // A single artifact written here before would otherwise be taken instead.
  std::error_code ec;
  std::filesystem::remove(dir + "/manifest.json", ec);
  std::ofstream out(dir + "/auto.json");
  out << index.dump(2) << "\n";
  if (!out)
    return Status::error("cannot write '" + dir + "/auto.json'");
  return Status::success();
}

bool gdn::isAutoSet(const std::string &dir) {
  return std::filesystem::exists(dir + "/auto.json");
}

Status gdn::readAutoSetIndex(const std::string &dir,
                             std::map<std::string, std::string> &candidates) {
  const std::string path = dir + "/auto.json";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  json index = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!in || index.is_discarded() || !index.is_object() ||
      index.value("format", "") != "gdn-auto-set-1" ||
      !index.contains("candidates") || !index["candidates"].is_object())
    return Status::error("auto artifact set '" + path +
                         "': not a gdn-auto-set-1 index");
  candidates.clear();
  for (auto it = index["candidates"].begin(); it != index["candidates"].end();
       ++it)
    if (it.value().is_string())
      candidates[it.key()] = it.value().get<std::string>();
  return Status::success();
}

Status gdn::writeArtifact(const std::string &dir, const Artifact &a) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Status::error("cannot create the artifact directory '" + dir +
                         "': " + ec.message());
  // An auto set's index left here would be taken instead of this artifact.
  std::filesystem::remove(dir + "/auto.json", ec);
  json kernels = json::object();
  for (const auto &[name, k] : a.kernels) {
    json params = json::array();
    for (const ParamInfo &p : k.params) {
      json jp = {{"kind", kindName(p.kind)}};
      if (p.kind == ParamInfo::Kind::MemRef) {
        jp["rank"] = p.rank;
        jp["dtype"] = dtypeName(p.dtype);
      } else if (p.kind == ParamInfo::Kind::TensorMap) {
        jp["source"] = p.source;
        jp["box"] = p.box;
        jp["swizzle"] = p.swizzle;
      }
      params.push_back(jp);
    }
    kernels[name] = {{"params", params},
                     {"scratch_bytes_per_block", k.scratchBytesPerBlock},
                     {"shared_bytes_per_block", k.sharedBytesPerBlock}};
  }
  json plans = json::object();
  for (const auto &[entry, plan] : a.plans) {
    json steps = json::array(), workspaces = json::array();
    for (const LaunchStep &st : plan.steps) {
      steps.push_back({{"kernel", st.kernel}, {"grid_z", slotAxisName(st.gridZ)}});
      if (st.perHead)
        steps.back()["grid_x"] = "heads";
    }
    for (const WorkspaceSpec &w : plan.workspaces) {
      workspaces.push_back({{"dtype", dtypeName(w.dtype)},
                            {"tile", w.tile},
                            {"slots", slotAxisName(w.slots)}});
      if (w.perHead)
        workspaces.back()["x"] = "heads";
    }
    plans[entry] = {{"schedule", plan.schedule},
                    {"segment_chunks", plan.segmentChunks},
                    {"programs_per_head", plan.programsPerHead},
                    {"steps", steps},
                    {"workspaces", workspaces}};
    if (plan.extraChunkInSegmentZero)
      plans[entry]["extra_chunk_in_segment_zero"] = true;
    if (plan.firstSegmentChunks)
      plans[entry]["first_segment_chunks"] = plan.firstSegmentChunks;
    if (!plan.specializedFrom.empty())
      plans[entry]["specialized_from"] = plan.specializedFrom;
    if (!plan.boundArgs.empty())
      plans[entry]["bound_args"] = plan.boundArgs;
  }
  const bool firstSegment =
      std::any_of(a.plans.begin(), a.plans.end(), [](const auto &p) {
        return p.second.firstSegmentChunks > 0;
      });
  const bool tensorMaps =
      std::any_of(a.kernels.begin(), a.kernels.end(), [](const auto &k) {
        return k.second.tensorMaps() > 0;
      });
  const bool perHead =
      std::any_of(a.plans.begin(), a.plans.end(), [](const auto &p) {
        return p.second.hasPerHead();
      });
  const bool callChunks =
      std::any_of(a.plans.begin(), a.plans.end(), [](const auto &p) {
        return p.second.hasCallChunks();
      });
  json m = {{"format", callChunks     ? Artifact::kFormatCallChunks
                       : perHead      ? Artifact::kFormatPerHead
                       : tensorMaps   ? Artifact::kFormatTensorMaps
                       : firstSegment ? Artifact::kFormatFirstSegment
                                      : Artifact::kFormat},
            {"chip", a.chip},
            {"block_size", a.blockSize},
            {"shape",
             {{"K", a.shape.K},
              {"V", a.shape.V},
              {"io", dtypeName(a.shape.io)},
              {"state", dtypeName(a.shape.state)},
              {"v_block", a.shape.vTile()},
              {"chunk", a.shape.chunk}}},
            {"source", a.source},
            {"ptx", "kernel.ptx"},
            {"grid", "x = value heads HV x (V / v_block), y = sequences B"},
            {"kernels", kernels},
            {"plans", plans}};
  std::ofstream ptx(dir + "/kernel.ptx", std::ios::binary);
  ptx << a.ptx;
  std::ofstream man(dir + "/manifest.json");
  man << m.dump(2) << "\n";
  if (!ptx || !man)
    return Status::error("cannot write the artifact to '" + dir + "'");
  return Status::success();
}

Status gdn::planArtifactCall(const Artifact &artifact, const std::string &entry,
                             const std::vector<KernelArg> &args, Grid programs,
                             ChunkSlots slots, ArtifactLaunch &launch) {
  launch.entry = artifact.entryFor(entry, args);
  launch.plan = artifact.planFor(launch.entry);
  return planCall(launch.plan, programs, slots, launch.launches,
                  launch.workspaces);
}

Status gdn::readArtifact(const std::string &dir, Artifact &a) {
  std::string text;
  const std::string path = dir + "/manifest.json";
  if (Status s = readFile(path, text); !s.ok())
    return s;
  json m = json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string &what) {
    return Status::error("artifact manifest '" + path + "': " + what);
  };
  if (m.is_discarded() || !m.is_object())
    return bad("not a JSON object");
  // Newest first, as the refusal lists them.
  const char *const formats[] = {
      Artifact::kFormatCallChunks, Artifact::kFormatPerHead,
      Artifact::kFormatTensorMaps, Artifact::kFormatFirstSegment,
      Artifact::kFormat,           Artifact::kFormatWithoutVSplit};
  if (!m.contains("format") ||
      std::none_of(std::begin(formats), std::end(formats),
                   [&](const char *f) { return m["format"] == f; })) {
    std::string known;
    for (const char *f : formats)
      known += std::string(known.empty() ? "" : ", ") + f;
    return bad("key 'format' is " +
               (m.contains("format") ? m["format"].dump() : "missing") +
               "; this runtime reads " + known +
               " (rebuild the artifact with gdn-run --emit artifact)");
  }
  auto getInt = [&](const json &o, const char *key, int64_t &out) {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number_integer())
      return false;
    out = o[key].get<int64_t>();
    return true;
  };
  auto getStr = [&](const json &o, const char *key, std::string &out) {
    if (!o.is_object() || !o.contains(key) || !o[key].is_string())
      return false;
    out = o[key].get<std::string>();
    return true;
  };
  // A required key of the schema: the refusal names it and what it holds.
  auto missing = [&](const std::string &key, const char *expected) {
    return bad("key '" + key + "' is missing or not " + expected);
  };
  std::string io, ptxName;
  if (!getStr(m, "chip", a.chip))
    return missing("chip", "a string");
  if (!getInt(m, "block_size", a.blockSize) || a.blockSize < 1)
    return missing("block_size", "a positive integer");
  if (!m.contains("shape") || !m["shape"].is_object())
    return missing("shape", "an object");
  if (!getInt(m["shape"], "K", a.shape.K) || a.shape.K < 1)
    return missing("shape.K", "a positive integer");
  if (!getInt(m["shape"], "V", a.shape.V) || a.shape.V < 1)
    return missing("shape.V", "a positive integer");
  if (!getStr(m["shape"], "io", io) || !parseDType(io, a.shape.io))
    return missing("shape.io", "a dtype name (BF16, F16, ...)");
  // Manifests written before 16-bit state pools have no "state": fp32.
  std::string state = "F32";
  if ((m["shape"].contains("state") && !getStr(m["shape"], "state", state)) ||
      !parseDType(state, a.shape.state) ||
      (a.shape.state != DType::F32 && a.shape.state != DType::BF16 &&
       a.shape.state != DType::F16))
    return missing("shape.state", "F32, BF16 or F16");
  // Manifests written before chunk sizes have no "chunk": 64.
  if (m["shape"].contains("chunk") &&
      (!getInt(m["shape"], "chunk", a.shape.chunk) ||
       !KernelShape::validChunk(a.shape.chunk)))
    return missing("shape.chunk", "32, 64 or 128");
  if (!getStr(m, "ptx", ptxName))
    return missing("ptx", "a file name");
  // Format 1 (before the V-split) has no v_block: the whole V.
  int64_t vBlock = a.shape.tileV();
  if (m["shape"].contains("v_block") && !getInt(m["shape"], "v_block", vBlock))
    return missing("shape.v_block", "an integer");
  if (vBlock <= 0 || a.shape.tileV() % vBlock != 0)
    return bad("shape.v_block " + std::to_string(vBlock) +
               " does not divide V " + std::to_string(a.shape.V) +
               " padded to its tile (" + std::to_string(a.shape.tileV()) + ")");
  a.shape.vBlock = vBlock == a.shape.tileV() ? 0 : vBlock;
  getStr(m, "source", a.source);
  if (!m.contains("kernels") || !m["kernels"].is_object())
    return missing("kernels", "an object");
  for (auto it = m["kernels"].begin(); it != m["kernels"].end(); ++it) {
    KernelInfo k;
    const std::string at = "kernels." + it.key() + ".";
    if (!getInt(it.value(), "scratch_bytes_per_block", k.scratchBytesPerBlock))
      return missing(at + "scratch_bytes_per_block", "an integer");
    if (!it.value().contains("params") || !it.value()["params"].is_array())
      return missing(at + "params", "an array");
    getInt(it.value(), "shared_bytes_per_block", k.sharedBytesPerBlock);
    for (const json &jp : it.value()["params"]) {
      ParamInfo p;
      std::string kind, dt;
      if (!getStr(jp, "kind", kind) || !parseKind(kind, p.kind))
        return bad("kernel '" + it.key() + "' has a parameter of unknown kind");
      if (p.kind == ParamInfo::Kind::MemRef &&
          (!getInt(jp, "rank", p.rank) || !getStr(jp, "dtype", dt) ||
           !parseDType(dt, p.dtype)))
        return bad("kernel '" + it.key() + "' has a malformed memref parameter");
      if (p.kind == ParamInfo::Kind::TensorMap) {
        if (Status s = readTensorMap(jp, k.params, p); !s.ok())
          return bad("kernel '" + it.key() + "' has a malformed tensor_map "
                     "parameter " + std::to_string(k.params.size()) + ": " +
                     s.message);
      } else if (!k.params.empty() &&
                 k.params.back().kind == ParamInfo::Kind::TensorMap) {
        return bad("kernel '" + it.key() + "' has a parameter (" + kind +
                   ") after its tensor maps (they come last)");
      }
      k.params.push_back(p);
    }
    a.kernels[it.key()] = k;
  }
  if (m.contains("plans")) {
    if (!m["plans"].is_object())
      return bad("plans is not an object");
    for (auto it = m["plans"].begin(); it != m["plans"].end(); ++it) {
      const json &jp = it.value();
      LaunchPlan plan;
      std::string what = "plan '" + it.key() + "' ";
      const std::string at = "plans." + it.key() + ".";
      if (!getStr(jp, "schedule", plan.schedule))
        return missing(at + "schedule", "a string");
      if (!getInt(jp, "segment_chunks", plan.segmentChunks))
        return missing(at + "segment_chunks", "an integer");
      if (!jp.contains("steps") || !jp["steps"].is_array())
        return missing(at + "steps", "an array");
      if (!jp.contains("workspaces") || !jp["workspaces"].is_array())
        return missing(at + "workspaces", "an array");
      for (const json &js : jp["steps"]) {
        LaunchStep st;
        std::string z;
        if (!getStr(js, "kernel", st.kernel) || !getStr(js, "grid_z", z) ||
            !parseSlotAxis(z, st.gridZ) || !a.kernels.count(st.kernel))
          return bad(what + "has a malformed step or names a missing kernel");
        if (js.contains("grid_x")) {
          if (js["grid_x"] != "heads")
            return bad(what + "has a step whose grid_x is not \"heads\"");
          st.perHead = true;
        }
        plan.steps.push_back(st);
      }
      for (const json &jw : jp["workspaces"]) {
        WorkspaceSpec w;
        std::string dt, slots;
        if (!getStr(jw, "dtype", dt) || !parseDType(dt, w.dtype) ||
            !getStr(jw, "slots", slots) || !parseSlotAxis(slots, w.slots) ||
            !jw.contains("tile") || !jw["tile"].is_array())
          return bad(what + "has a malformed workspace");
        for (const json &d : jw["tile"]) {
          if (!d.is_number_integer() || d.get<int64_t>() < 1)
            return bad(what + "has a workspace with a bad tile dimension");
          w.tile.push_back(d.get<int64_t>());
        }
        if (jw.contains("x")) {
          if (jw["x"] != "heads")
            return bad(what + "has a workspace whose x is not \"heads\"");
          w.perHead = true;
        }
        plan.workspaces.push_back(w);
      }
      if (jp.contains("extra_chunk_in_segment_zero")) {
        if (!jp["extra_chunk_in_segment_zero"].is_boolean())
          return bad(what + "has an extra_chunk_in_segment_zero that is not a boolean");
        plan.extraChunkInSegmentZero = jp["extra_chunk_in_segment_zero"].get<bool>();
      }
      if (jp.contains("first_segment_chunks") &&
          (!getInt(jp, "first_segment_chunks", plan.firstSegmentChunks) ||
           plan.firstSegmentChunks < 1))
        return bad(what + "has a first_segment_chunks that is not a positive integer");
      if (plan.firstSegmentChunks) {
        // Run-first kernels never give segment 0 the extra chunk, and only
        // kernels over segments have a segment 0.
        if (plan.extraChunkInSegmentZero)
          return bad(what + "has both first_segment_chunks and "
                            "extra_chunk_in_segment_zero");
        if (std::none_of(plan.steps.begin(), plan.steps.end(),
                         [](const LaunchStep &s) {
                           return s.gridZ == SlotAxis::Segments;
                         }))
          return bad(what + "has first_segment_chunks but no kernel over "
                            "segments");
      }
      // Artifacts from before the plan carried it: the shape's v_block.
      plan.programsPerHead = a.shape.programsPerHead();
      if (jp.contains("programs_per_head")) {
        int64_t perHead = 0;
        if (!getInt(jp, "programs_per_head", perHead) ||
            perHead != a.shape.programsPerHead())
          return bad(what + "has programs_per_head " +
                     jp["programs_per_head"].dump() + "; shape.v_block " +
                     std::to_string(a.shape.vTile()) + " of V " +
                     std::to_string(a.shape.V) + " gives " +
                     std::to_string(a.shape.programsPerHead()));
        plan.programsPerHead = perHead;
      }
      if (jp.contains("specialized_from") &&
          !getStr(jp, "specialized_from", plan.specializedFrom))
        return bad(what + "has a malformed specialized_from");
      if (jp.contains("bound_args")) {
        const json &jb = jp["bound_args"];
        if (!jb.is_array() || jb.size() % 2 != 0)
          return bad(what + "has bound_args that are not (index, value) pairs");
        for (const json &v : jb) {
          if (!v.is_number_integer())
            return bad(what + "has a non-integer in bound_args");
          plan.boundArgs.push_back(v.get<int64_t>());
        }
      }
      a.plans[it.key()] = plan;
    }
  }
  return readFile(dir + "/" + ptxName, a.ptx);
}

void gdn::locateArtifact(const std::string &root, const KernelShape &shape,
                         std::string &dir, bool &autoSet) {
  dir = root;
  if (!std::filesystem::exists(dir + "/manifest.json") && !isAutoSet(dir))
    dir += "/" + Artifact::subdirFor(shape);
  autoSet = isAutoSet(dir);
}

Status gdn::pickFromAutoSet(const std::string &dir, const std::string &name,
                            const std::string &schedule, std::string &member) {
  std::map<std::string, std::string> listed;
  if (Status s = readAutoSetIndex(dir, listed); !s.ok())
    return s;
  auto it = listed.find(name);
  if (it == listed.end() || it->second != schedule)
    return Status::error("auto artifact set '" + dir + "' has no '" + name +
                         "' (" + schedule + "), which the rule picked for "
                         "this call; rebuild it with this version: gdn-run "
                         "--emit artifact --schedule auto");
  member = dir + "/" + name;
  return Status::success();
}
