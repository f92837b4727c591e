// RUN: gdn-opt %s -split-input-file --gdn-gpu-lower-tiles="mma-precision=bf16 bulk-checkpoints=true" | FileCheck %s
// RUN: gdn-opt %s -split-input-file --gdn-gpu-lower-tiles=mma-precision=bf16 | FileCheck %s --check-prefix=REGS

#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 2], instrN = 64>
module attributes {gpu.container_module} {
gpu.module @k {
  // With bulk-checkpoints (off by default: REGS), a state store inside a
  // loop (a paged checkpoint) leaves through a
  // shared-memory buffer of its own and cp.async.bulk. Its buffer sits past
  // the rest of the kernel's shared memory (none here): 128 rows of 512
  // bytes, each padded to 544. Each thread waits for its earlier copies to
  // have read the buffer, the block meets, the 32 8-byte runs of every
  // thread land in the padded rows, the writes are fenced for the async
  // proxy, the block meets again, and thread r < 128 copies row r (512
  // bytes) to pool[page, head, row + r]. The store after the loop stays a
  // store from registers; before returning every thread waits for its
  // copies to have read shared memory.
  // CHECK-LABEL: gpu.func @checkpoints
  // CHECK-SAME: gdn.shared_bytes_per_block = 69632
  // CHECK: scf.for
  // CHECK: scf.if
  // CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-COUNT-32: vector.store %{{.*}} {alignment = 8 : i64} : memref<17408xf32, #gpu.address_space<workgroup>>, vector<2xf32>
  // CHECK: nvvm.fence.proxy
  // CHECK-NEXT: nvvm.barrier0
  // CHECK: %[[TID:.*]] = arith.index_cast{{.*}} : i32 to index
  // CHECK: %[[COPIES:.*]] = arith.cmpi ult, %[[TID]], %c128
  // CHECK: scf.if %[[COPIES]]
  // CHECK: llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
  // CHECK: arith.muli %{{.*}}, %c544_i64
  // CHECK: nvvm.cp.async.bulk.global.shared.cta %{{.*}}, %{{.*}}, %c512_i32 : <1>, <3>
  // CHECK-NEXT: nvvm.cp.async.bulk.commit.group
  // CHECK: } {{.*}}
  // CHECK-NOT: nvvm.cp.async.bulk.global
  // CHECK-COUNT-32: vector.store %{{.*}} {alignment = 8 : i64} : memref<?x?x128x128xf32>, vector<2xf32>
  // CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
  // CHECK-NEXT: gpu.return
  // REGS-LABEL: gpu.func @checkpoints
  // REGS-SAME: gdn.shared_bytes_per_block = 0
  // REGS-NOT: nvvm.cp.async.bulk
  // REGS-COUNT-64: vector.store %{{.*}} {alignment = 8 : i64} : memref<?x?x128x128xf32>, vector<2xf32>
  // REGS-NOT: nvvm.cp.async.bulk
  // REGS: gpu.return
  gpu.func @checkpoints(%spool: memref<?x?x128x128xf32>, %pool: memref<?x?x128x128xf32>,
                        %head: index, %n: index) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m0 = gdn.state_load %spool[%c0, %head, %c0] : memref<?x?x128x128xf32> -> tensor<128x128xf32, #mma>
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %m0) -> (tensor<128x128xf32, #mma>) {
      %two = arith.addf %acc, %acc : tensor<128x128xf32, #mma>
      %odd = arith.remui %i, %c1 : index
      %at = arith.cmpi eq, %odd, %c0 : index
      scf.if %at {
        gdn.state_store %two, %pool[%i, %head, %c0] : tensor<128x128xf32, #mma>, memref<?x?x128x128xf32>
      }
      scf.yield %two : tensor<128x128xf32, #mma>
    }
    gdn.state_store %m, %pool[%n, %head, %c0] : tensor<128x128xf32, #mma>, memref<?x?x128x128xf32>
    gpu.return
  }
}
}

// -----

#mma = #gdn_gpu.wgmma<warpsPerCTA = [4, 2], instrN = 64>
module attributes {gpu.container_module} {
gpu.module @k {
  // Without a known block size nothing says every row has a thread to copy
  // it: the checkpoint is stored from registers.
  // CHECK-LABEL: gpu.func @unknown_block
  // CHECK-NOT: nvvm.cp.async.bulk
  // CHECK: gpu.return
  gpu.func @unknown_block(%spool: memref<?x?x128x128xf32>, %pool: memref<?x?x128x128xf32>,
                          %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m0 = gdn.state_load %spool[%c0, %c0, %c0] : memref<?x?x128x128xf32> -> tensor<128x128xf32, #mma>
    scf.for %i = %c0 to %n step %c1 {
      gdn.state_store %m0, %pool[%i, %c0, %c0] : tensor<128x128xf32, #mma>, memref<?x?x128x128xf32>
    }
    gpu.return
  }
}
}
