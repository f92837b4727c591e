#!/bin/bash
# Session 11: the same serial step on both sides. FLA's
# chunk_gated_delta_rule_fwd_kernel_h (64 blocks of V-block 64 at 1 x 4096,
# 1.28 us a chunk) against our staged-bf16 v-block=64 state kernel (64
# blocks, 4.1 us a chunk): one ncu --set full launch each, details and SASS.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1
details() { ncu -i $1 --page details --csv 2>/dev/null | python3 -c "
import csv,sys
keep=('Duration','Registers Per Thread','Executed Instructions','Achieved Occupancy','Block Size','Grid Size','Dynamic Shared Memory Per Block','Static Shared Memory Per Block','Executed Ipc Active','Issue Slots Busy','L1/TEX Hit Rate','L2 Hit Rate','Memory Throughput','Compute (SM) Throughput')
for r in csv.DictReader(sys.stdin):
    if r['Metric Name'] in keep: print('  ', r['Metric Name'], r['Metric Value'], r['Metric Unit'])"; }
timeout 200 ncu --set full --import-source no --clock-control none -k regex:gdn_pool__state -c 1 -o /tmp/ours $RUN --backend cuda --artifacts artifacts-tiles/s11-sb64 --heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096 --warmup 0 --repeat 1 > $L/ours-run.txt 2>&1
echo "== ours rc $?"; details /tmp/ours.ncu-rep
ncu -i /tmp/ours.ncu-rep --page source --csv --print-source sass > /tmp/ours.csv 2>&1; gzip -c /tmp/ours.csv > $OUT/ours-state-sass.csv.gz
cat > /tmp/flah.py <<'PY'
import sys, torch, torch.nn.functional as F
sys.path.insert(0, "/tmp/fla-site")
from fla.ops.gated_delta_rule import chunk_gated_delta_rule as gdr
N, H, HV, D = 4096, 16, 32, 128
q = torch.randn(1, N, H, D, device="cuda", dtype=torch.bfloat16); k = torch.randn_like(q)
v = torch.randn(1, N, HV, D, device="cuda", dtype=torch.bfloat16)
g = -F.softplus(torch.randn(1, N, HV, device="cuda")) * 0.5
beta = torch.rand(1, N, HV, device="cuda"); h0 = torch.zeros(1, HV, D, D, device="cuda")
cu = torch.tensor([0, N], device="cuda", dtype=torch.int64)
call = lambda: gdr(q, k, v, g, beta, D ** -0.5, initial_state=h0, output_final_state=True, use_qk_l2norm_in_kernel=True, cu_seqlens=cu)
for _ in range(5): call()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
call(); torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
PY
timeout 300 ncu --set full --import-source no --clock-control none --profile-from-start off -k regex:fwd_kernel_h -c 1 -o /tmp/flah python3 /tmp/flah.py > $L/flah-run.txt 2>&1
echo "== FLA h rc $?"; tail -3 $L/flah-run.txt; details /tmp/flah.ncu-rep
ncu -i /tmp/flah.ncu-rep --page source --csv --print-source sass > /tmp/flah.csv 2>&1; gzip -c /tmp/flah.csv > $OUT/flah-sass.csv.gz
