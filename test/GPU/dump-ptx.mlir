// gdn-gpu-dump-ptx writes the PTX of gdn-gpu-pipeline as plain text, and
// it is byte for byte what `gdn-run --emit ptx` prints for the same kernel
// and schedule: gdn-opt and gdn-run run one back end with one set of
// defaults (gdn/Transforms/CodegenOptions.h). stderr stays empty.
// Six whole GPU compiles: left out of the sanitizer suite for time
// (the DumpPTX pass itself is a few lines; the pipeline tests run there).
// UNSUPPORTED: asan
// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-gpu-pipeline=schedule=fused --gdn-gpu-dump-ptx=file=%t.opt.ptx -o /dev/null 2> %t.err
// RUN: count 0 < %t.err
// RUN: gdn-run --emit ptx --schedule fused -o %t.run.ptx
// RUN: diff %t.opt.ptx %t.run.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.opt.ptx
// PTX: .target sm_90a
// PTX: .visible .entry gdn_pool(
// PTX: wgmma.mma_async

// split-seq as auto picks it for long sequences (two kernels an entry).
// RUN: gdn-opt %kernels/gdn_chunked.mlir '--gdn-gpu-pipeline=schedule={split-seq segment-chunks=16 replay=load intermediates=bf16}' --gdn-gpu-dump-ptx=file=%t.opt2.ptx -o /dev/null
// RUN: gdn-run --emit ptx --schedule 'split-seq segment-chunks=16 replay=load intermediates=bf16' -o %t.run2.ptx
// RUN: diff %t.opt2.ptx %t.run2.ptx

// A V-split: gdn-opt takes the kernel with its V tiles bound by `gdn-run
// --emit tile` (what the schedule pass's refusal names), and gives gdn-run's
// PTX.
// RUN: gdn-run --emit tile --schedule 'fused v-block=64' -o %t.vb.mlir
// RUN: gdn-opt %t.vb.mlir '--gdn-gpu-pipeline=schedule={fused v-block=64}' --gdn-gpu-dump-ptx=file=%t.opt3.ptx -o /dev/null
// RUN: gdn-run --emit ptx --schedule 'fused v-block=64' -o %t.run3.ptx
// RUN: diff %t.opt3.ptx %t.run3.ptx

// Nothing to dump: refused, naming what to run first.
// RUN: not gdn-opt %s --gdn-gpu-dump-ptx 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: gdn-gpu-dump-ptx expects one gpu.binary, found 0; run it after gdn-gpu-pipeline (or gdn-gpu-tiles-to-ptx)
module {
}
