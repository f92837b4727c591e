//===- GDNGPUDialect.td - tiles with layouts --------------*- tablegen -*-===//
//
// The GPU back end's level (DESIGN.md, "The GPU back end, second design"):
// the same tile program, with every tile's tensor type carrying a layout
// that says which thread of the block holds which element.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_GPU_DIALECT_TD
#define GDN_GPU_DIALECT_TD

include "mlir/IR/OpBase.td"

def GDNGPU_Dialect : Dialect {
  let name = "gdn_gpu";
  let summary = "Layouts of register and shared-memory tiles for the GPU back end";
  let description = [{
    Triton's model, cut to what chunked Gated DeltaNet needs. A tile value of
    a GPU kernel is a ranked tensor whose encoding is a layout attribute of
    this dialect:

    - `#gdn_gpu.blocked`: coalesced loads / stores and elementwise work;
    - `#gdn_gpu.wgmma`: the accumulator of Hopper's warpgroup MMA;
    - `#gdn_gpu.slice`: a row or column vector of a 2-D layout, broadcast
      along the removed dimension without moving data;
    - `#gdn_gpu.dot_operand`: an operand of a warpgroup MMA, staged in
      shared memory in an `#gdn_gpu.nvmma_shared` layout.

    `gdn_gpu.convert_layout` moves a tile between layouts. The passes
    `gdn-gpu-assign-layouts` and `gdn-gpu-remove-layout-conversions` give
    every tile a layout, anchored on the matmuls, and remove the conversions
    that are not needed.
  }];
  let cppNamespace = "::mlir::gdn_gpu";
  let useDefaultAttributePrinterParser = 1;
}

class GDNGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<GDNGPU_Dialect, mnemonic, traits>;

#endif // GDN_GPU_DIALECT_TD
