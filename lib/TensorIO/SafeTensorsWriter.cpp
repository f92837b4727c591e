//===- SafeTensorsWriter.cpp - Writing safetensors files ------------------===//
#include "gdn/TensorIO/SafeTensors.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace gdn {

using nlohmann::json;

Status serializeSafetensors(const TensorMap &tensors, std::vector<uint8_t> &out,
                            const MetadataMap &metadata) {
  out.clear();
  json header = json::object();
  uint64_t offset = 0;
  // std::map iterates in name order, which fixes the data layout.
  for (const auto &[name, tensor] : tensors) {
    if (name == "__metadata__")
      return Status::error("tensor '__metadata__': name is reserved");
    for (int64_t d : tensor.shape)
      if (d < 0)
        return Status::error("tensor '" + name + "' is " + tensor.describe() +
                             ": negative dimension");
    const uint64_t expected =
        uint64_t(tensor.numel()) * elementSize(tensor.dtype);
    if (tensor.data.size() != expected)
      return Status::error("tensor '" + name + "' is " + tensor.describe() +
                           " but holds " + std::to_string(tensor.data.size()) +
                           " bytes; expected " + std::to_string(expected));
    json entry = json::object();
    entry["dtype"] = dtypeName(tensor.dtype);
    entry["shape"] = tensor.shape;
    entry["data_offsets"] = {offset, offset + expected};
    header[name] = std::move(entry);
    offset += expected;
  }
  if (!metadata.empty()) {
    json meta = json::object();
    for (const auto &[key, value] : metadata)
      meta[key] = value;
    header["__metadata__"] = std::move(meta);
  }
  // Replace invalid UTF-8 instead of throwing: exceptions are off in LLVM.
  std::string text =
      header.dump(-1, ' ', false, json::error_handler_t::replace);
  // Pad so the data buffer starts 8-byte aligned.
  text.append((8 - text.size() % 8) % 8, ' ');

  const uint64_t headerLen = text.size();
  out.reserve(8 + headerLen + offset);
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<uint8_t>(headerLen >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  for (const auto &entry : tensors)
    out.insert(out.end(), entry.second.data.begin(), entry.second.data.end());
  return Status::success();
}

Status writeSafetensors(const std::string &path, const TensorMap &tensors,
                        const MetadataMap &metadata) {
  std::vector<uint8_t> bytes;
  if (Status s = serializeSafetensors(tensors, bytes, metadata); !s.ok())
    return Status::error(path + ": " + s.message);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file)
    return Status::error(path + ": cannot open file for writing");
  file.write(reinterpret_cast<const char *>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file)
    return Status::error(path + ": write failed");
  return Status::success();
}

} // namespace gdn
