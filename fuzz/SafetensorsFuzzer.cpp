//===- SafetensorsFuzzer.cpp - arbitrary bytes as a .safetensors file -----===//
//
// The reader must refuse or accept without reading out of bounds; what it
// accepts must survive a write / read round trip unchanged.
//
//===----------------------------------------------------------------------===//

#include "gdn/TensorIO/SafeTensors.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gdn::TensorMap tensors;
  if (!gdn::parseSafetensors(data, size, tensors, "fuzz").ok())
    return 0;
  std::vector<uint8_t> bytes;
  if (!gdn::serializeSafetensors(tensors, bytes).ok())
    std::abort();
  gdn::TensorMap again;
  if (!gdn::parseSafetensors(bytes.data(), bytes.size(), again, "fuzz").ok())
    std::abort();
  if (again.size() != tensors.size())
    std::abort();
  for (const auto &[name, t] : tensors) {
    const gdn::HostTensor &u = again[name];
    if (u.dtype != t.dtype || u.shape != t.shape || u.data != t.data)
      std::abort();
  }
  return 0;
}
