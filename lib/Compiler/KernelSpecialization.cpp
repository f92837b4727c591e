//===- KernelSpecialization.cpp - bind a kernel's shape aliases -----------===//
//
// Kernel files name every shaped type through a few type aliases at their
// top, written for K = V = 128 and bf16. Specialising a kernel re-binds those
// alias lines; everything else, including line numbers (diagnostics point at
// the user's file), stays as written.
//
//===----------------------------------------------------------------------===//

#include "gdn/Compiler/KernelCompiler.h"

#include <map>
#include <sstream>

using namespace gdn;

static std::string mlirElementType(DType dtype) {
  return dtype == DType::F16 ? "f16" : dtype == DType::F32 ? "f32" : "bf16";
}

std::string gdn::specializeKernelSource(const std::string &source,
                                        const KernelShape &shape) {
  const std::string io = mlirElementType(shape.io);
  // Memrefs have the head sizes; tiles have them padded to the MMA tile.
  const std::string k = std::to_string(shape.K), v = std::to_string(shape.V);
  const std::string kt = std::to_string(shape.tileK());
  // Tiles of V rows hold one program's block of them (a V-split).
  const std::string vt = std::to_string(shape.vTile());
  // Chunk tiles have one row per token of a chunk.
  const std::string c = std::to_string(shape.chunk);
  const std::map<std::string, std::string> aliases = {
      {"qk_mem", "memref<?x?x" + k + "x" + io + ">"},
      {"v_mem", "memref<?x?x" + v + "x" + io + ">"},
      // Rows may be padded apart (seed 004): the row stride is free.
      {"pool_mem", "memref<?x?x" + v + "x" + k + "x" +
                       mlirElementType(shape.state) + ", strided<[?, " +
                       std::to_string(shape.V * shape.K) + ", " + k + ", 1]>>"},
      {"qk_in", "tensor<" + c + "x" + kt + "x" + io + ">"},
      {"v_in", "tensor<" + c + "x" + vt + "x" + io + ">"},
      {"qk_tile", "tensor<" + c + "x" + kt + "xf32>"},
      {"v_tile", "tensor<" + c + "x" + vt + "xf32>"},
      {"chunk_vec", "tensor<" + c + "xf32>"},
      {"chunk_sq", "tensor<" + c + "x" + c + "xf32>"},
      {"state", "tensor<" + vt + "x" + kt + "xf32>"},
      {"kk", "tensor<" + kt + "x" + kt + "xf32>"},
  };
  std::istringstream in(source);
  std::string out, line;
  while (std::getline(in, line)) {
    // "!name = type   // comment" at the start of a line.
    if (line.size() > 1 && line[0] == '!') {
      size_t end = line.find_first_of(" =", 1);
      auto it = aliases.find(line.substr(1, end == std::string::npos
                                                ? std::string::npos
                                                : end - 1));
      size_t eq = line.find('=');
      if (it != aliases.end() && eq != std::string::npos) {
        size_t comment = line.find("//");
        std::string tail =
            comment == std::string::npos ? "" : "   " + line.substr(comment);
        line = line.substr(0, eq + 1) + " " + it->second + tail;
      }
    }
    out += line;
    out += '\n';
  }
  return out;
}
