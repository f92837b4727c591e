//===- SafeTensors.h - Reading and writing .safetensors files ---*- C++ -*-===//
//
// Format: u64 little-endian header length N, N bytes of JSON
//   {"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]},
//    ..., "__metadata__": {"key": "value"}}
// then the data buffer; offsets are relative to the buffer start.
//
//===----------------------------------------------------------------------===//
#ifndef GDN_TENSORIO_SAFETENSORS_H
#define GDN_TENSORIO_SAFETENSORS_H

#include "gdn/TensorIO/HostTensor.h"
#include "gdn/TensorIO/Status.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gdn {

using TensorMap = std::map<std::string, HostTensor>;
using MetadataMap = std::map<std::string, std::string>;

/// Headers above this size are refused as corrupt rather than allocated.
constexpr uint64_t kMaxSafetensorsHeaderBytes = 100ull * 1024 * 1024;

/// Parses an in-memory safetensors image. Never reads outside
/// [bytes, bytes + size). `sourceName` prefixes every error message.
/// On error `tensors` is left empty.
Status parseSafetensors(const uint8_t *bytes, size_t size, TensorMap &tensors,
                        const std::string &sourceName = "<memory>",
                        MetadataMap *metadata = nullptr);

Status readSafetensors(const std::string &path, TensorMap &tensors,
                       MetadataMap *metadata = nullptr);

/// Header padded with spaces to a multiple of 8, tensors stored contiguously
/// in name order.
Status serializeSafetensors(const TensorMap &tensors, std::vector<uint8_t> &out,
                            const MetadataMap &metadata = {});

Status writeSafetensors(const std::string &path, const TensorMap &tensors,
                        const MetadataMap &metadata = {});

} // namespace gdn

#endif // GDN_TENSORIO_SAFETENSORS_H
