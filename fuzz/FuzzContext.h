//===- FuzzContext.h - one MLIRContext shared by fuzz inputs ----*- C++ -*-===//

#ifndef GDN_FUZZ_FUZZCONTEXT_H
#define GDN_FUZZ_FUZZCONTEXT_H

#include "gdn/Compiler/SourceNesting.h"
#include "gdn/Dialect/GDNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gdn/InitAll/InitAll.h"

namespace gdn::fuzz {

/// A context with every dialect the tools register, diagnostics silenced
/// (a diagnostic is the correct answer to bad input, not a finding), built
/// once: creating a context per input would dominate the run time.
inline mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    mlir::gdn::registerGDNDialects(registry);
    auto *c = new mlir::MLIRContext(registry,
                                    mlir::MLIRContext::Threading::DISABLED);
    c->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
    return c;
  }();
  return *ctx;
}

/// Parses (and verifies) `size` bytes as a module; null when rejected.
inline mlir::OwningOpRef<mlir::ModuleOp> parse(const uint8_t *data,
                                               size_t size) {
  // MLIR's lexer finds the end of input at a NUL past the buffer, as every
  // file read through llvm::MemoryBuffer has; libFuzzer's bytes have none,
  // so the copy supplies it (std::string keeps one after its last byte).
  std::string text(reinterpret_cast<const char *>(data), size);
  // Refused before parsing, as gdn-run refuses such kernel files: MLIR's
  // parser recurses once per bracket level without a limit.
  if (gdn::firstTooDeepBracket(text, gdn::kMaxSourceNesting))
    return nullptr;
  return mlir::parseSourceString<mlir::ModuleOp>(
      text, mlir::ParserConfig(&context()));
}

} // namespace gdn::fuzz

#endif // GDN_FUZZ_FUZZCONTEXT_H
