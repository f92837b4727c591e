//===- JitRuntimeSymbols.h - helpers the JIT-compiled kernels call -*- C++ -*-===//

#ifndef GDN_LIB_COMPILER_JITRUNTIMESYMBOLS_H
#define GDN_LIB_COMPILER_JITRUNTIMESYMBOLS_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

namespace gdn {
/// Definitions for runtime routines generated code may call but the host
/// process does not provide (for ExecutionEngine::registerSymbols).
llvm::orc::SymbolMap jitRuntimeSymbols(llvm::orc::MangleAndInterner interner);
} // namespace gdn

#endif
