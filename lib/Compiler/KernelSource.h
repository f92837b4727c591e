//===- KernelSource.h - read, specialise and parse a kernel file -*- C++ -*-===//
//
// Shared by the CPU and GPU compilers (internal to lib/Compiler).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_LIB_COMPILER_KERNELSOURCE_H
#define GDN_LIB_COMPILER_KERNELSOURCE_H

#include "gdn/Compiler/KernelCompiler.h"
#include "gdn/Runtime/LaunchPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <string>

namespace gdn {

/// Diagnostics printed with source locations, collected into a string that
/// is also returned to the caller. Keep it alive while passes run.
struct CapturedDiagnostics {
  std::string text;
  llvm::raw_string_ostream os{text};
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> handler;

  explicit CapturedDiagnostics(mlir::MLIRContext &ctx)
      : handler(std::make_unique<mlir::SourceMgrDiagnosticHandler>(sourceMgr,
                                                                   &ctx, os)) {}
};

/// The gdn dialect, every upstream dialect and the LLVM IR translations.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// The shape the kernel is specialised for: `options.shape` with the
/// schedule's v-block; refuses a v-block that does not divide V.
Status resolveKernelShape(const CompileOptions &options, KernelShape &shape);

/// Reads `options.kernelPath`, re-binds its shape aliases to `shape` and
/// parses it; diagnostics name the user's file, line and column.
Status parseKernel(const CompileOptions &options, const KernelShape &shape,
                   mlir::MLIRContext &context, CapturedDiagnostics &diags,
                   std::string &specialised,
                   mlir::OwningOpRef<mlir::ModuleOp> &module);

/// Runs gdn-schedule with `schedule` on `module` and reads back the launch
/// plan of every entry it scheduled.
Status scheduleKernel(const CompileOptions &options, mlir::MLIRContext &context,
                      CapturedDiagnostics &diags, mlir::ModuleOp module,
                      std::map<std::string, LaunchPlan> &plans);

/// The DType of an MLIR element type; false for types buffers cannot hold.
bool dtypeOfElement(mlir::Type type, DType &out);

/// The launch plans gdn-schedule recorded in `module`, by entry.
Status extractLaunchPlans(mlir::ModuleOp module,
                          std::map<std::string, LaunchPlan> &plans);

} // namespace gdn

#endif // GDN_LIB_COMPILER_KERNELSOURCE_H
