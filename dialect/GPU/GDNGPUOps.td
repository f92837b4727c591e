//===- GDNGPUOps.td - ops of the gdn_gpu dialect ----------*- tablegen -*-===//

#ifndef GDN_GPU_OPS_TD
#define GDN_GPU_OPS_TD

include "GDNGPULayouts.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GDNGPU_ConvertLayoutOp : GDNGPU_Op<"convert_layout",
    [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "move a tile from one layout to another";
  let description = [{
    The same tile, held by other threads or in shared memory. Lowered to
    register permutations, warp shuffles or a trip through shared memory,
    whichever the pair of layouts allows; `gdn-gpu-remove-layout-conversions`
    removes the ones that are not needed. Converting to the layout a tile
    already has folds away, and so does a conversion of a conversion.

    ```mlir
    %acc = gdn_gpu.convert_layout %x
        : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

#endif // GDN_GPU_OPS_TD
