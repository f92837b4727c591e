// UNSUPPORTED: asan
// Stock mlir-opt of the same LLVM loads the dialect and the passes as plugins.
// RUN: mlir-opt %s --load-dialect-plugin=%gdn_libs/libGDNPlugin%shlibext | FileCheck %s --check-prefix=PARSE
// RUN: mlir-opt %S/../Dialect/ops.mlir --load-dialect-plugin=%gdn_libs/libGDNPlugin%shlibext | gdn-opt | FileCheck %S/../Dialect/ops.mlir
// RUN: mlir-opt %s --load-dialect-plugin=%gdn_libs/libGDNPlugin%shlibext --load-pass-plugin=%gdn_libs/libGDNPlugin%shlibext --pass-pipeline="builtin.module(convert-gdn-to-linalg)" | FileCheck %s --check-prefix=PASS
// Without the plugin, stock mlir-opt does not know the dialect.
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// PARSE: gdn.cumsum
// PASS-NOT: gdn.cumsum
// PASS: scf.for
// NOPLUGIN: Dialect `gdn' not found
func.func @f(%g: tensor<64xf32>) -> tensor<64xf32> {
  %c = gdn.cumsum %g : tensor<64xf32>
  return %c : tensor<64xf32>
}
