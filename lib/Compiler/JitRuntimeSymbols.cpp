//===- JitRuntimeSymbols.cpp - helpers the JIT-compiled kernels call ------===//
//
// LLVM's x86 backend keeps bf16 values in f32 registers and narrows them on
// store with the compiler-rt routine __truncsfbf2, which neither libgcc nor
// Debian's MLIR runtime libraries export. The JIT gets this definition.
//
//===----------------------------------------------------------------------===//

#include "JitRuntimeSymbols.h"

#include "gdn/TensorIO/DType.h"


#include <cstring>

namespace {
// The ABI returns a bf16 in the low 16 bits of xmm0, as for _Float16; GCC 12
// has no returnable __bf16, so the bits travel in a _Float16.
extern "C" _Float16 gdnTruncSFBF2(float value) {
  uint16_t bits = gdn::floatToBF16(value);
  _Float16 result;
  std::memcpy(&result, &bits, sizeof(bits));
  return result;
}
} // namespace

llvm::orc::SymbolMap
gdn::jitRuntimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  symbols[interner("__truncsfbf2")] = {
      llvm::orc::ExecutorAddr::fromPtr(&gdnTruncSFBF2),
      llvm::JITSymbolFlags::Exported};
  return symbols;
}
