#!/bin/bash
# Session 11: where would a chunk-parallel prepare pay? CUDA events for the
# landed auto set (v2), staged-bf16 (s11-sb), staged-bf16 v-block=64
# (s11-sb64) and split-seq with 8-chunk segments (s11-ss8); ncu durations of
# each kernel at 1 x 4096; FLA's kernels at 1 x 4096 by torch.profiler.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
H="--heads 16 --value-heads 32 --head-dim 128 --no-check"
for set in v2 s11-sb s11-sb64 s11-ss8; do for T in 4096 16384; do
  echo -n "$set 1x$T: "; $RUN --backend cuda --artifacts $A/$set $H --seqlens $T --warmup 3 --repeat 20 2>&1 | grep -E "median|schedule|error" | tr '\n' ' '; echo
done; done
M=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__grid_size
for set in v2 s11-sb s11-sb64 s11-ss8; do
  echo "== ncu $set 1x4096"
  timeout 100 ncu --clock-control none --metrics $M $RUN --backend cuda --artifacts $A/$set $H --seqlens 4096 --warmup 0 --repeat 1 2>&1 | grep -E "gdn_|gpu__time|warps_active|registers|shared_mem|grid_size" | sed 's/  */ /g'
done
wait
cat > /tmp/flaprof.py <<'PY'
import sys, torch, torch.nn.functional as F
sys.path.insert(0, "/tmp/fla-site")
from fla.ops.gated_delta_rule import chunk_gated_delta_rule as gdr
for T in (4096, 16384):
    N, H, HV, D = T, 16, 32, 128
    q = torch.randn(1, N, H, D, device="cuda", dtype=torch.bfloat16); k = torch.randn_like(q)
    v = torch.randn(1, N, HV, D, device="cuda", dtype=torch.bfloat16)
    g = -F.softplus(torch.randn(1, N, HV, device="cuda")) * 0.5
    beta = torch.rand(1, N, HV, device="cuda"); h0 = torch.zeros(1, HV, D, D, device="cuda")
    cu = torch.tensor([0, N], device="cuda", dtype=torch.int64)
    call = lambda: gdr(q, k, v, g, beta, D ** -0.5, initial_state=h0, output_final_state=True, use_qk_l2norm_in_kernel=True, cu_seqlens=cu)
    for _ in range(3): call()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        for _ in range(5): call()
        torch.cuda.synchronize()
    print(f"== FLA 1x{T}")
    for e in p.key_averages():
        if e.device_type == torch.autograd.DeviceType.CUDA or getattr(e, "cuda_time", 0):
            t = getattr(e, "device_time", None) or getattr(e, "cuda_time", 0)
            print(f"{e.key[:90]:90s} {e.count:4d} {t:10.1f} us")
PY
timeout 200 python3 /tmp/flaprof.py > $L/flaprof.txt 2>&1; echo "flaprof rc $?"; grep -v Warning $L/flaprof.txt | head -60
