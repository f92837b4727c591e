"""Host time of the Python binding alone for a layer call with slots.

Runs on any machine with the library (no GPU): a step of paged layer calls
on numpy tensors through an unchecked Kernel, with the library's
gdn_plan_run replaced by a stub once the plan exists, so what is timed is
the binding (argument handling, the layout key, the plan lookup, the
address array), not the kernels. It times the short path (the slots'
remembered plan) and the full path (the same call with the remembering
switched off) in one process. torch tensors' attributes cost more than
numpy's, so absolute times on a serving host differ; bench_eager.py
measures those on the GPU.

    GDN_LIBRARY=build/lib/libgdn.so PYTHONPATH=python \\
        python3 bench/binding_time.py [--calls 20000]
"""

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import gdn                      # noqa: E402
from gdn import _kernel         # noqa: E402


class _StubLibrary:
    """Stands in for the library in a plan's runs: returns success."""

    @staticmethod
    def gdn_plan_run(handle, data, stream):
        return 0

    @staticmethod
    def gdn_plan_destroy(handle):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--layers", type=int, default=8)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    T, H, HV, K, page = 256, 2, 4, 64, 256
    tables = dict(cu_seqlens=np.array([0, T]), page_indices=np.array([0]),
                  page_indptr=np.array([0, 1]), last_page_len=np.array([T]))
    layers = [dict(q=rng.standard_normal((T, H, K)).astype(np.float16),
                   k=rng.standard_normal((T, H, K)).astype(np.float16),
                   v=rng.standard_normal((T, HV, K)).astype(np.float16),
                   g=-np.abs(rng.standard_normal((T, HV))).astype(np.float32) * 0.1,
                   beta=rng.standard_normal((T, HV)).astype(np.float32),
                   pool=np.zeros((1, HV, K, K), np.float32))
              for _ in range(args.layers)]
    kernel = gdn.compile(schedule="fused", checked=False)
    slots = gdn.gdn_paged_prefill_slots(tables["cu_seqlens"], tables["page_indices"],
                                        tables["page_indptr"], page,
                                        tables["last_page_len"])

    def call(i):
        layer = layers[i % len(layers)]
        return kernel.chunk_gated_delta_rule_paged(
            layer["q"], layer["k"], layer["v"], layer["g"], layer["beta"], 0.125,
            cu_seqlens=tables["cu_seqlens"], state_pool=layer["pool"],
            page_indices=tables["page_indices"], page_indptr=tables["page_indptr"],
            page_size=page, last_page_len=tables["last_page_len"],
            use_qk_l2norm_in_kernel=True, gate_domain="log", slots=slots)

    call(0)                                    # the real call makes the plan
    (plan,) = kernel._plans._plans.values()
    plan._lib = _StubLibrary

    def median_us(n):
        clock, times = time.perf_counter_ns, []
        for i in range(n):
            start = clock()
            call(i)
            times.append(clock() - start)
        return statistics.median(times) / 1e3

    short = median_us(args.calls)
    assert len(slots._remembered) == 1
    _kernel.Kernel._remember = lambda *a: None  # every call the full path
    slots._remembered.clear()
    full = median_us(args.calls)
    print("binding per layer call (numpy, library stubbed), median of %d: "
          "short path %.2f us, full path %.2f us" % (args.calls, short, full))


if __name__ == "__main__":
    main()
