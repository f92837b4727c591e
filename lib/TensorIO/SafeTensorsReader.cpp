//===- SafeTensorsReader.cpp - Defensive safetensors parsing --------------===//
//
// Files come from other tools and may be truncated or corrupt; every size and
// offset is checked before it is used so that no input can make the reader
// touch memory outside the image.
//
//===----------------------------------------------------------------------===//
#include "gdn/TensorIO/SafeTensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <limits>

namespace gdn {

using nlohmann::json;

namespace {

std::string quoted(const std::string &s) { return "'" + s + "'"; }

/// A JSON integer that fits in [0, 2^63); false for anything else.
bool readNonNegative(const json &value, int64_t &out) {
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return false;
    out = static_cast<int64_t>(u);
    return true;
  }
  if (value.is_number_integer()) {
    out = value.get<int64_t>();
    return out >= 0;
  }
  return false;
}

struct TensorEntry {
  std::string name;
  HostTensor tensor; // dtype and shape only until the data is copied
  uint64_t begin = 0, end = 0;
};

/// Validates one header entry (everything except its relation to others).
Status parseEntry(const std::string &where, const std::string &name,
                  const json &entry, uint64_t bufferSize, TensorEntry &out) {
  const std::string prefix = where + ": tensor " + quoted(name) + ": ";
  if (!entry.is_object())
    return Status::error(prefix + "header entry is not an object");

  auto dtypeIt = entry.find("dtype");
  if (dtypeIt == entry.end())
    return Status::error(prefix + "missing field 'dtype'");
  if (!dtypeIt->is_string())
    return Status::error(prefix + "field 'dtype' must be a string");
  const std::string dtypeStr = dtypeIt->get<std::string>();
  if (!parseDType(dtypeStr, out.tensor.dtype))
    return Status::error(prefix + "unsupported dtype " + quoted(dtypeStr) +
                         " (supported: BF16, F16, F32, F64, I32, I64)");

  auto shapeIt = entry.find("shape");
  if (shapeIt == entry.end())
    return Status::error(prefix + "missing field 'shape'");
  if (!shapeIt->is_array())
    return Status::error(prefix + "field 'shape' must be an array of integers");
  // Count elements with overflow checks; a zero dimension makes any later
  // huge dimension harmless, so track overflow separately.
  uint64_t numel = 1;
  bool overflow = false, hasZeroDim = false;
  for (size_t i = 0; i < shapeIt->size(); ++i) {
    const json &dim = (*shapeIt)[i];
    if (!dim.is_number_integer())
      return Status::error(prefix + "shape[" + std::to_string(i) +
                           "] is not an integer");
    if (!dim.is_number_unsigned() && dim.get<int64_t>() < 0)
      return Status::error(prefix + "shape[" + std::to_string(i) + "] = " +
                           std::to_string(dim.get<int64_t>()) +
                           " is a negative dimension");
    int64_t d;
    if (!readNonNegative(dim, d))
      return Status::error(prefix + "shape[" + std::to_string(i) +
                           "] overflows int64");
    out.tensor.shape.push_back(d);
    if (d == 0)
      hasZeroDim = true;
    else if (__builtin_mul_overflow(numel, uint64_t(d), &numel))
      overflow = true;
  }
  if (hasZeroDim)
    numel = 0, overflow = false;
  const uint64_t width = elementSize(out.tensor.dtype);
  uint64_t nbytes = 0;
  if (overflow || __builtin_mul_overflow(numel, width, &nbytes) ||
      nbytes > uint64_t(std::numeric_limits<int64_t>::max()))
    return Status::error(prefix + "shape " + shapeToString(out.tensor.shape) +
                         " overflows: its byte size does not fit in 64 bits");

  auto offsetsIt = entry.find("data_offsets");
  if (offsetsIt == entry.end())
    return Status::error(prefix + "missing field 'data_offsets'");
  int64_t begin, end;
  if (!offsetsIt->is_array() || offsetsIt->size() != 2 ||
      !readNonNegative((*offsetsIt)[0], begin) ||
      !readNonNegative((*offsetsIt)[1], end))
    return Status::error(prefix + "field 'data_offsets' must be an array of "
                                  "two non-negative integers");
  const std::string offsetsStr =
      "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
  if (begin > end)
    return Status::error(prefix + offsetsStr + " has begin > end");
  if (uint64_t(end) > bufferSize)
    return Status::error(prefix + offsetsStr + " reach beyond the data buffer (" +
                         std::to_string(bufferSize) + " bytes; file truncated?)");
  if (uint64_t(end - begin) != nbytes)
    return Status::error(prefix + offsetsStr + " span " +
                         std::to_string(end - begin) + " bytes but " +
                         out.tensor.describe() + " needs " +
                         std::to_string(nbytes) + " bytes (size mismatch)");
  out.name = name;
  out.begin = uint64_t(begin);
  out.end = uint64_t(end);
  return Status::success();
}

Status parseMetadata(const std::string &where, const json &value,
                     MetadataMap *metadata) {
  if (!value.is_object())
    return Status::error(where + ": '__metadata__' must be an object");
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it.value().is_string())
      return Status::error(where + ": '__metadata__' entry " + quoted(it.key()) +
                           " must be a string");
    if (metadata)
      (*metadata)[it.key()] = it.value().get<std::string>();
  }
  return Status::success();
}

/// Two tensors sharing bytes would alias; empty ranges share nothing.
Status checkNoOverlap(const std::string &where,
                      std::vector<const TensorEntry *> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const TensorEntry *a, const TensorEntry *b) {
              return a->begin < b->begin;
            });
  const TensorEntry *previous = nullptr;
  for (const TensorEntry *e : entries) {
    if (e->begin == e->end)
      continue;
    if (previous && e->begin < previous->end)
      return Status::error(where + ": tensors " + quoted(previous->name) +
                           " and " + quoted(e->name) +
                           " have overlapping data_offsets");
    previous = e;
  }
  return Status::success();
}

} // namespace

Status parseSafetensors(const uint8_t *bytes, size_t size, TensorMap &tensors,
                        const std::string &sourceName, MetadataMap *metadata) {
  tensors.clear();
  if (metadata)
    metadata->clear();
  const std::string &where = sourceName;
  if (size < 8)
    return Status::error(where + ": file truncated: " + std::to_string(size) +
                         " bytes, shorter than the 8-byte header length");
  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i)
    headerLen = (headerLen << 8) | bytes[i];
  if (headerLen > kMaxSafetensorsHeaderBytes)
    return Status::error(where + ": header length " + std::to_string(headerLen) +
                         " is absurd (limit " +
                         std::to_string(kMaxSafetensorsHeaderBytes) + " bytes)");
  if (headerLen > size - 8)
    return Status::error(where + ": file truncated: header length " +
                         std::to_string(headerLen) + " exceeds the " +
                         std::to_string(size - 8) + " bytes after it");

  const char *headerBegin = reinterpret_cast<const char *>(bytes + 8);
  json header = json::parse(headerBegin, headerBegin + headerLen, nullptr,
                            /*allow_exceptions=*/false);
  if (header.is_discarded())
    return Status::error(where + ": header is not valid JSON");
  if (!header.is_object())
    return Status::error(where + ": header JSON is not an object");

  const uint8_t *buffer = bytes + 8 + headerLen;
  const uint64_t bufferSize = size - 8 - headerLen;
  std::vector<TensorEntry> entries;
  entries.reserve(header.size());
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (Status s = parseMetadata(where, it.value(), metadata); !s.ok())
        return s;
      continue;
    }
    TensorEntry entry;
    if (Status s = parseEntry(where, it.key(), it.value(), bufferSize, entry);
        !s.ok())
      return s;
    entries.push_back(std::move(entry));
  }
  std::vector<const TensorEntry *> pointers;
  for (const TensorEntry &e : entries)
    pointers.push_back(&e);
  if (Status s = checkNoOverlap(where, pointers); !s.ok())
    return s;

  for (TensorEntry &e : entries) {
    e.tensor.data.assign(buffer + e.begin, buffer + e.end);
    tensors.emplace(e.name, std::move(e.tensor));
  }
  return Status::success();
}

Status readSafetensors(const std::string &path, TensorMap &tensors,
                       MetadataMap *metadata) {
  tensors.clear();
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file)
    return Status::error(path + ": cannot open file");
  const std::streamoff size = file.tellg();
  if (size < 0)
    return Status::error(path + ": cannot determine file size");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  file.seekg(0);
  if (size > 0 && !file.read(reinterpret_cast<char *>(bytes.data()), size))
    return Status::error(path + ": read failed");
  return parseSafetensors(bytes.data(), bytes.size(), tensors, path, metadata);
}

} // namespace gdn
