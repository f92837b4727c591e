//===- Passes.td - passes of the gdn compiler -------------*- tablegen -*-===//

#ifndef GDN_PASSES_TD
#define GDN_PASSES_TD

include "mlir/Pass/PassBase.td"

def GDNProgramIdsToArgs : Pass<"gdn-program-ids-to-args", "::mlir::ModuleOp"> {
  let summary = "turn gdn.program_id into trailing index arguments of the kernel";
  let description = [{
    For execution on the CPU: every `func.func` that uses `gdn.program_id`
    gets three trailing `index` arguments (grid axes 0, 1, 2) and each
    `gdn.program_id N` is replaced by argument N. The driver then calls the
    kernel once per point of the launch grid, as Triton's CPU backend does.
    Functions without program ids are left alone.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def ConvertGDNToLinalg : Pass<"convert-gdn-to-linalg", "::mlir::ModuleOp"> {
  let summary = "lower gdn tile ops to linalg, tensor, arith, math, memref and scf";
  let description = [{
    The CPU path's first conversion. Tile compute ops become `linalg` ops on
    tensors (matmuls, reductions, elementwise `linalg.generic`s); the
    triangular inverse and the cumulative sum become `scf.for` loops over
    tensor slices; tile loads and stores become `scf.for` loops of
    `memref.load` / `memref.store` guarded by the row count, bridged to tensors
    with `bufferization.to_tensor` / `to_buffer`. The result bufferizes with
    `one-shot-bufferize`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"];
}

#endif // GDN_PASSES_TD
