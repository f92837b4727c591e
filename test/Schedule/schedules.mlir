// What each schedule makes of one gdn.chunk_scan: the kernels (names,
// launch order, what grid axis z walks) and what crosses global memory
// between them (the trailing `gdn.workspace` arguments).

// RUN: gdn-opt %S/Inputs/running-sum.mlir --gdn-schedule=schedule=fused | FileCheck %s --check-prefix=FUSED
// One kernel, the scan as a loop carrying the state; no workspace.
// FUSED-LABEL: func.func @scan(
// FUSED-NOT:   gdn.workspace
// FUSED-SAME:  attributes {gdn.entry = "scan", gdn.grid_z = "one", gdn.schedule = "fused", gdn.step = 0 : i64
// FUSED:       %[[M0:.*]] = gdn.state_load
// FUSED:       %[[M:.*]] = scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %[[M0]])
// FUSED:         gdn.tile_load %{{.*}} dims [0, 1]
// FUSED:         %[[S1:.*]] = arith.addf %[[S]]
// FUSED:         gdn.matmul
// FUSED:         gdn.tile_store
// FUSED:         scf.yield %[[S1]]
// FUSED:       gdn.state_store %[[M]]
// FUSED-NOT:   func.func @scan__

// RUN: gdn-opt %S/Inputs/running-sum.mlir --gdn-schedule=schedule=staged | FileCheck %s --check-prefix=STAGED
// prepare: parallel over chunk slots, each stores its tile (fp32).
// STAGED-LABEL: func.func @scan__prepare(
// STAGED-SAME:  %[[X:[a-z0-9]+]]: memref<?x64xf32>
// STAGED-SAME:  %[[PREP:[a-z0-9]+]]: memref<?x?x?x64x64xf32> {gdn.workspace = "chunks"}
// STAGED-SAME:  %[[STATES:[a-z0-9]+]]: memref<?x?x?x64x64xf32> {gdn.workspace = "chunks"})
// STAGED-SAME:  attributes {gdn.entry = "scan", gdn.grid_z = "chunks", {{.*}}gdn.step = 0 : i64
// STAGED-NOT:   gdn.state_store
// STAGED:       %[[SLOT:.*]] = gdn.program_id 2
// STAGED:       scf.if
// STAGED:         %[[T:.*]] = gdn.tile_load %[[X]]
// STAGED:         gdn.tile_store %[[T]], %[[PREP]][%{{.*}}, %{{.*}}, %[[SLOT]], %{{.*}}, %{{.*}}] dims [3, 4]
// STAGED-NOT:   gdn.state_store
// STAGED:       return
// state: serial; records the state entering each chunk, stores the final one.
// STAGED-LABEL: func.func @scan__state(
// STAGED-SAME:  gdn.grid_z = "one", {{.*}}gdn.step = 1 : i64
// STAGED:       scf.for %[[C:.*]] = {{.*}} iter_args(%[[S:.*]] =
// STAGED:         gdn.tile_load %[[PREP2:[a-z0-9]+]][{{.*}}] dims [3, 4]
// STAGED:         gdn.tile_store %[[S]], %{{.*}}[{{.*}}] dims [3, 4]
// STAGED-NOT:     gdn.matmul
// STAGED:       gdn.state_store
// output: parallel over chunk slots; reads both workspaces, writes %out.
// STAGED-LABEL: func.func @scan__output(
// STAGED-SAME:  gdn.grid_z = "chunks", {{.*}}gdn.step = 2 : i64
// STAGED-NOT:   gdn.state_store
// STAGED:       gdn.program_id 2
// STAGED:       gdn.tile_load {{.*}} dims [3, 4]
// STAGED:       gdn.tile_load {{.*}} dims [3, 4]
// STAGED:       gdn.matmul
// STAGED:       gdn.tile_store {{.*}} dims [0, 1]
// STAGED-NOT:   gdn.state_store
// STAGED:       return

// RUN: gdn-opt %S/Inputs/running-sum.mlir --gdn-schedule=schedule=staged-bf16 | FileCheck %s --check-prefix=BF16
// Prepared values cross in bf16; states stay fp32.
// BF16-LABEL: func.func @scan__prepare(
// BF16-SAME:  memref<?x?x?x64x64xbf16> {gdn.workspace = "chunks"}
// BF16-SAME:  memref<?x?x?x64x64xf32> {gdn.workspace = "chunks"}
// BF16:       arith.truncf {{.*}} : tensor<64x64xf32> to tensor<64x64xbf16>
// BF16:       gdn.tile_store {{.*}} : tensor<64x64xbf16>, memref<?x?x?x64x64xbf16>
// BF16-LABEL: func.func @scan__state(
// BF16:       gdn.tile_load {{.*}} : memref<?x?x?x64x64xbf16> -> tensor<64x64xbf16>
// BF16:       arith.extf

// RUN: gdn-opt %S/Inputs/running-sum.mlir --gdn-schedule=schedule=%gdn_src/schedules/staged-two-kernels.sched | FileCheck %s --check-prefix=TWO
// A schedule file: prepare, then one serial kernel that also emits.
// TWO:      func.func @scan__prepare({{.*}}gdn.schedule = "staged intermediates=bf16 output=with-state"
// TWO:      func.func @scan__state(
// TWO:        scf.for
// TWO:          gdn.matmul
// TWO:          gdn.tile_store {{.*}} dims [0, 1]
// TWO:        gdn.state_store
// TWO-NOT:  func.func @scan__output

// RUN: gdn-opt %S/Inputs/running-sum.mlir --gdn-schedule=schedule=split-seq | FileCheck %s --check-prefix=SPLIT
// transition: per segment of 16 chunks, (a, B, R) composed chunk by chunk;
// segment 0's block also copies the initial state for replay.
// SPLIT-LABEL: func.func @scan__transition(
// SPLIT-SAME:  %[[A:[a-z0-9]+]]: memref<?x?x?xf32> {gdn.workspace = "segments"}
// SPLIT-SAME:  %[[B:[a-z0-9]+]]: memref<?x?x?x64x64xf32> {gdn.workspace = "segments"}
// SPLIT-SAME:  %[[R:[a-z0-9]+]]: memref<?x?x?x64x64xf32> {gdn.workspace = "segments"}
// SPLIT-SAME:  %[[INITWS:[a-z0-9]+]]: memref<?x?x?x64x64xf32> {gdn.workspace = "segments"})
// SPLIT-SAME:  gdn.grid_z = "segments", {{.*}}gdn.segment_chunks = 16 : i64, gdn.step = 0 : i64
// SPLIT:       %[[INIT0:.*]] = gdn.state_load
// SPLIT:       %[[SEG:.*]] = gdn.program_id 2
// SPLIT:       arith.muli %[[SEG]], %c16
// SPLIT:       scf.if
// SPLIT:         gdn.tile_store %[[INIT0]], %[[INITWS]]
// SPLIT:       scf.for {{.*}} -> (f32, tensor<64x64xf32>, tensor<64x64xf32>)
// SPLIT:         gdn.matmul
// SPLIT:         gdn.matmul
// SPLIT:       memref.store {{.*}}, %[[A]][{{.*}}, %[[SEG]]]
// SPLIT:       gdn.tile_store {{.*}}, %[[B]]
// SPLIT:       gdn.tile_store {{.*}}, %[[R]]
// SPLIT-NOT:   gdn.state_store
// replay: segment s first applies the maps of segments 0 .. s-1 to the
// initial state as transition copied it (other replay blocks may write the
// pool row or page it came from), B carried a step ahead, then runs its
// chunks; the block of the last segment stores the final state (a program
// without chunks: segment 0's block, first, from the pool). No third
// kernel.
// SPLIT-NOT:   func.func @scan__combine(
// SPLIT-LABEL: func.func @scan__replay(
// SPLIT-SAME:  gdn.grid_z = "segments", {{.*}}gdn.step = 1 : i64
// SPLIT:       %[[INIT:.*]] = gdn.state_load
// SPLIT:       scf.if
// SPLIT-NEXT:    gdn.state_store %[[INIT]]
// SPLIT:       %[[S:.*]] = gdn.program_id 2
// SPLIT:       %[[COPY:.*]] = gdn.tile_load %[[INITWS]]
// SPLIT:       %[[PRE:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %[[S]] {{.*}} iter_args(%{{.*}} = %[[COPY]], %{{.*}} = %{{.*}})
// SPLIT:         gdn.tile_load %[[B]]
// SPLIT:         memref.load %[[A]][{{.*}}, %[[J]]]
// SPLIT:         gdn.tile_load %[[R]][{{.*}}, %[[J]], {{.*}}]
// SPLIT:         gdn.matmul
// SPLIT:       %[[END:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[PRE]]#0)
// SPLIT:         gdn.tile_store {{.*}} dims [0, 1]
// SPLIT:       %[[LAST:.*]] = arith.cmpi eq
// SPLIT:       scf.if %[[LAST]]
// SPLIT-NEXT:    gdn.state_store %[[END]]
// SPLIT:       return

// A folding transition composes the map itself: the segment's loop runs the
// stage on the map so far and keeps what it yields (no generic B1 B2, R1 B2).
// RUN: gdn-opt %S/Inputs/running-sum-folding.mlir --gdn-schedule=schedule=split-seq | FileCheck %s --check-prefix=FOLD
// FOLD-LABEL: func.func @scan__transition(
// FOLD:       scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}, %[[R:.*]] = %{{.*}}) -> (f32, tensor<64x64xf32>, tensor<64x64xf32>)
// FOLD:         %[[X:.*]] = gdn.tile_load
// FOLD-NOT:     gdn.matmul
// FOLD:         %[[R1:.*]] = arith.addf %[[R]], %[[X]]
// FOLD-NEXT:    scf.yield %[[A]], %[[B]], %[[R1]]
// FOLD-LABEL: func.func @scan__replay(

// replay=load: transition stores the prepared values its stage reads that
// replay would not prepare anyway for the outputs (here x's squares, as
// bf16; x itself the outputs read) in a workspace with a slot per chunk;
// replay loads chunk c + 1's at the top of chunk c, carries them narrow,
// and widens the current ones.
// RUN: gdn-opt %S/Inputs/running-sum-squares.mlir '--gdn-schedule=schedule={split-seq replay=load intermediates=bf16}' | FileCheck %s --check-prefix=LOAD
// LOAD-LABEL: func.func @scan__transition(
// LOAD-SAME:  %[[X:[a-z0-9]+]]: memref<?x?x?x64x64xbf16> {gdn.workspace = "chunks"})
// LOAD-SAME:  gdn.schedule = "split-seq segment-chunks=16 replay=load intermediates=bf16"
// LOAD:       scf.for %[[C:[a-z0-9]+]] =
// LOAD:         %[[SLOT:.*]] = arith.subi %[[C]], %c0
// LOAD:         %[[XT:.*]] = gdn.tile_load %arg0
// LOAD:         %[[SQ:.*]] = arith.mulf %[[XT]], %[[XT]]
// LOAD:         %[[NARROW:.*]] = arith.truncf %[[SQ]] : tensor<64x64xf32> to tensor<64x64xbf16>
// LOAD:         gdn.tile_store %[[NARROW]], %[[X]][{{.*}}, %[[SLOT]], %{{.*}}, %{{.*}}] dims [3, 4]
// LOAD:         gdn.matmul
// LOAD:       scf.yield
//
// A program whose chunk count is one past a multiple of 16 gives that
// chunk to segment 0: its range grows by one, the others move up by one
// (planCall launches a segment fewer for kernels marked so).
// LOAD-LABEL: func.func @scan__replay(
// LOAD-SAME:  %[[X:[a-z0-9]+]]: memref<?x?x?x64x64xbf16> {gdn.workspace = "chunks"})
// LOAD-SAME:  gdn.extra_chunk_in_segment_zero
// LOAD:       scf.if
// LOAD:       %[[S:.*]] = gdn.program_id 2
// LOAD:       %[[N:.*]] = arith.subi %{{.*}}, %c0 : index
// LOAD:       %[[REM:.*]] = arith.remui %[[N]], %c16 : index
// LOAD:       %[[ONE_PAST:.*]] = arith.cmpi eq, %[[REM]], %c1 : index
// LOAD:       %[[LONGER:.*]] = arith.cmpi ugt, %[[N]], %c16{{.*}} : index
// LOAD:       %[[BOTH:.*]] = arith.andi %[[LONGER]], %[[ONE_PAST]] : i1
// LOAD:       %[[EXTRA:.*]] = arith.select %[[BOTH]], %c1{{.*}}, %c0{{.*}} : index
// LOAD:       %[[NOT0:.*]] = arith.cmpi ne, %[[S]], %c0{{.*}} : index
// LOAD:       %[[SHIFT:.*]] = arith.select %[[NOT0]], %[[EXTRA]], %c0{{.*}} : index
// LOAD:       %[[S16:.*]] = arith.muli %[[S]], %c16{{.*}} : index
// LOAD:       %[[OFF:.*]] = arith.addi %[[S16]], %[[SHIFT]] : index
// LOAD:       %[[FIRSTC:.*]] = arith.addi %c0, %[[OFF]] : index
// LOAD:       %[[NEXTS:.*]] = arith.addi %[[S]], %c1{{.*}} : index
// LOAD:       %[[NEXT16:.*]] = arith.muli %[[NEXTS]], %c16{{.*}} : index
// LOAD:       %[[BOUNDOFF:.*]] = arith.addi %[[NEXT16]], %[[EXTRA]] : index
// LOAD:       %[[BOUND:.*]] = arith.addi %c0, %[[BOUNDOFF]] : index
// LOAD:       arith.minui %[[BOUND]], %{{.*}} : index
// LOAD:       scf.if
// LOAD:       %[[FIRSTSLOT:.*]] = arith.subi %[[FIRSTC]], %c0
// LOAD:       %[[FIRST:.*]] = gdn.tile_load %[[X]][%{{.*}}, %{{.*}}, %[[FIRSTSLOT]], %{{.*}}, %{{.*}}]
// LOAD:       scf.for %[[C:[a-z0-9]+]] = %[[FIRSTC]] to %[[END:[a-z0-9]+]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CUR:.*]] = %[[FIRST]]) -> (tensor<64x64xf32>, tensor<64x64xbf16>)
// LOAD:         %[[AFTER:.*]] = arith.addi %[[C]], %c1
// LOAD:         %[[LAST:.*]] = arith.subi %[[END]], %c1
// LOAD:         %[[NEXT:.*]] = arith.minui %[[AFTER]], %[[LAST]]
// LOAD:         %[[NEXTSLOT:.*]] = arith.subi %[[NEXT]], %c0
// LOAD:         %[[FETCHED:.*]] = gdn.tile_load %[[X]][%{{.*}}, %{{.*}}, %[[NEXTSLOT]], %{{.*}}, %{{.*}}] dims [3, 4] : {{.*}} -> tensor<64x64xbf16>
// LOAD:         gdn.tile_load %arg0
// LOAD:         arith.extf %[[CUR]] : tensor<64x64xbf16> to tensor<64x64xf32>
// LOAD:         gdn.tile_store {{.*}} dims [0, 1]
// LOAD:         scf.yield %{{.*}}, %[[FETCHED]]
//
// prepare=separate: a kernel parallel over chunks (grid z = chunk slots)
// prepares chunk lower + program_id(2) and stores the squares; transition
// loads them instead of storing them (the squaring left there is dead and
// goes at the next canonicalisation) and replay loads them as before.
// RUN: gdn-opt %S/Inputs/running-sum-squares.mlir '--gdn-schedule=schedule={split-seq replay=load intermediates=bf16 prepare=separate}' | FileCheck %s --check-prefix=SEPARATE
// SEPARATE-LABEL: func.func @scan__prepare(
// SEPARATE-SAME:  %[[X:[a-z0-9]+]]: memref<?x?x?x64x64xbf16> {gdn.workspace = "chunks"})
// SEPARATE-SAME:  gdn.grid_z = "chunks"
// SEPARATE-SAME:  gdn.schedule = "split-seq segment-chunks=16 replay=load intermediates=bf16 prepare=separate"
// SEPARATE:       %[[Z:.*]] = gdn.program_id 2
// SEPARATE:       %[[C:.*]] = arith.addi %c0, %[[Z]]
// SEPARATE:       %[[IN:.*]] = arith.cmpi ult, %[[C]], %{{.*}}
// SEPARATE:       scf.if %[[IN]]
// SEPARATE-NOT:   scf.for
// SEPARATE:         %[[XT:.*]] = gdn.tile_load %arg0
// SEPARATE:         %[[SQ:.*]] = arith.mulf %[[XT]], %[[XT]]
// SEPARATE:         %[[NARROW:.*]] = arith.truncf %[[SQ]] : tensor<64x64xf32> to tensor<64x64xbf16>
// SEPARATE:         gdn.tile_store %[[NARROW]], %[[X]]
// SEPARATE-LABEL: func.func @scan__transition(
// SEPARATE-SAME:  %[[X:[a-z0-9]+]]: memref<?x?x?x64x64xbf16> {gdn.workspace = "chunks"})
// SEPARATE:       scf.for
// SEPARATE-NOT:     gdn.tile_store {{.*}}, %[[X]]
// SEPARATE:         %[[LOADED:.*]] = gdn.tile_load %[[X]]
// SEPARATE-NOT:     gdn.tile_store {{.*}}, %[[X]]
// SEPARATE:         arith.extf %[[LOADED]] : tensor<64x64xbf16> to tensor<64x64xf32>
// SEPARATE-NOT:     gdn.tile_store {{.*}}, %[[X]]
// SEPARATE:       scf.yield
// SEPARATE-LABEL: func.func @scan__replay(
// SEPARATE:       scf.for
// SEPARATE:         gdn.tile_load %[[X]]
//
// In running-sum.mlir the step reads x, which replay loads for the outputs
// anyway: nothing is stored between the kernels but the segments' maps.
// RUN: gdn-opt %S/Inputs/running-sum.mlir '--gdn-schedule=schedule={split-seq replay=load intermediates=bf16}' | FileCheck %s --check-prefix=LOAD-NONE
// LOAD-NONE-LABEL: func.func @scan__transition(
// LOAD-NONE-NOT:   gdn.workspace = "chunks"
// LOAD-NONE-SAME:  gdn.schedule = "split-seq segment-chunks=16 replay=load intermediates=bf16"
// LOAD-NONE:       scf.for
// LOAD-NONE-NOT:   arith.truncf
// LOAD-NONE:       scf.yield
// LOAD-NONE-LABEL: func.func @scan__replay(
// LOAD-NONE-NOT:   gdn.workspace = "chunks"
