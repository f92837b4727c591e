"""One rank of the context-parallel tests (run by test_context_parallel.py
under mpirun): the pool call with cp_group on this rank's slice of a fresh
random step, checked against the float64 reference of the whole step.

Every rank holds its own state pool with its own random contents: a
sequence's initial state must come from the pool of the rank holding its
first token, its final state must land in the pool of the rank holding its
last token, and every other row of every pool must stay as it was. Outputs
are poisoned (NaN) before the call. The ranks' verdicts are gathered;
rank 0 prints them, and the process exits non-zero on any failure.

    mpirun -n 4 python3 cp_worker.py CASE
    torchrun --nproc-per-node 2 cp_worker.py --torch CASE

With --torch the ranks talk through torch.distributed (gloo) and run on
torch tensors: CUDA ones (bf16 tokens) where a GPU is present, every rank
on the one GPU when there is only one.
"""

import sys
import traceback

import numpy as np

import gdn
import gdn.cp
import problems
import reference as R

TOL = 5e-3


def split(total, size, case):
    """Token counts per rank: uneven, with a rank shorter than a chunk and,
    from 3 ranks, an empty rank."""
    if size == 1:
        return [total]
    if case == "even":
        base = [total // size] * size
        base[-1] += total - sum(base)
        return base
    if size == 2:
        return [total - 13, 13]                    # shorter than a chunk
    counts = [total * 2 // 5, 0, 13] + [0] * (size - 3)   # an empty rank
    rest = total - sum(counts)
    for r in range(3, size):
        counts[r] = rest // (size - 3)
    counts[-1] += total - sum(counts)
    return counts


CASES = {
    # name: (seqlens, H, HV, K, V, chunk_size)
    "uneven": ([300, 45, 0, 200, 7], 1, 2, 64, 64, 64),
    "even": ([300, 45, 0, 200, 7], 1, 2, 64, 64, 32),
    "one-long": ([700], 2, 4, 32, 48, 64),
    "wide": ([150, 30], 1, 1, 256, 320, 64),      # V + K > 512: two map calls
    # For the GPU's artifact sets (K = V = 128, chunks of 64).
    "gpu-uneven": ([3000, 450, 0, 2000, 70], 2, 4, 128, 128, 64),
    "gpu-one-long": ([16384], 2, 8, 128, 128, 64),
}

TORCH = None          # the torch module with --torch, else None
GROUP = None          # the cp_group the calls get: mpi4py's or torch's


def kernel():
    """The fused schedule on the CPU; on the GPU, the artifacts' set."""
    if on_device():
        return gdn.default_kernel()
    return gdn.compile(schedule="fused")


def on_device():
    return TORCH is not None and TORCH.cuda.is_available()


def round_tokens(call):
    """On the GPU the tokens run in bf16: round q, k, v to it here, so the
    reference sees what the kernels read."""
    if on_device():
        for n in ("q", "k", "v"):
            call[n] = TORCH.from_numpy(call[n].astype(np.float32)).to(
                TORCH.bfloat16).float().numpy()


def operands(arrays):
    """This rank's operands: numpy as generated, or torch tensors (bf16
    tokens on the GPU)."""
    if TORCH is None:
        return dict(arrays)
    device = "cuda" if on_device() else "cpu"
    out = {}
    for n, a in arrays.items():
        t = TORCH.from_numpy(np.ascontiguousarray(a)).to(device)
        out[n] = t.to(TORCH.bfloat16) if n in ("q", "k", "v") and device == "cuda" else t
    return out


def host(t):
    """A result as a numpy array (float32 for 16-bit torch tensors)."""
    if TORCH is not None and isinstance(t, TORCH.Tensor):
        return t.float().cpu().numpy()
    return t


def run_case(comm, name, rng):
    seqlens, H, HV, K, V, chunk = CASES[name]
    rank, size = comm.rank, comm.size
    call = problems.pool_call(rng, seqlens, H=H, HV=HV, K=K, V=V)
    # Slow gates (decay near 1, small beta): the state a rank inherits must
    # still weigh in its outputs hundreds of tokens on, or a wrong
    # composition would pass unseen.
    call["a"] = rng.normal(-7, 1, call["a"].shape).astype(np.float32)
    call["b"] = rng.normal(-2, 1, call["b"].shape).astype(np.float32)
    pools = [(rng.standard_normal(call["state_pool"].shape) * 0.1).astype(np.float32)
             for _ in range(size)]
    cu = call["cu_seqlens"]
    counts = split(int(cu[-1]), size, name)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    lo, hi = int(offsets[rank]), int(offsets[rank + 1])

    def owner(token):
        return int(np.searchsorted(offsets, token, side="right") - 1)

    round_tokens(call)
    mine = operands(dict(
        {n: call[n][lo:hi] for n in ("q", "k", "v", "a", "b")},
        A_log=call["A_log"], dt_bias=call["dt_bias"],
        state_pool=pools[rank].copy(), cache_indices=call["cache_indices"],
        cu_seqlens=cu))
    # The reference: each sequence from its first token's rank's pool.
    initial = pools[0].copy()
    for s, row in enumerate(call["cache_indices"]):
        if cu[s + 1] > cu[s]:
            initial[row] = pools[owner(int(cu[s]))][row]
    ref_o, ref_pool = R.pool_reference(
        call["q"], call["k"], call["v"], call["a"], call["b"], call["A_log"],
        call["dt_bias"], initial, call["cache_indices"], cu)

    out = mine["v"][:0].new_full((hi - lo, HV, V), float("nan")) \
        if TORCH is not None else np.full((hi - lo, HV, V), np.nan, call["v"].dtype)
    got = kernel().gdn_extend_chunkwise(
        mine["q"], mine["k"], mine["v"], mine["a"], mine["b"], mine["A_log"],
        mine["dt_bias"], mine["state_pool"], mine["cache_indices"],
        mine["cu_seqlens"], chunk, output=out, cp_group=GROUP)
    assert got is out
    o = host(out)
    assert np.isfinite(o.astype(np.float64)).all(), "o not all written"
    if hi > lo:
        err = R.rel_l2(o, ref_o[lo:hi])
        assert err <= TOL, "o error %g" % err
    written = {int(row) for s, row in enumerate(call["cache_indices"])
               if cu[s + 1] > cu[s] and owner(int(cu[s + 1]) - 1) == rank}
    problems.assert_pages(host(mine["state_pool"]), pools[rank], ref_pool,
                          written, TOL, "rank %d" % rank)
    return "tokens [%d, %d), rows written %s" % (lo, hi, sorted(written))


PAGED_CASES = {
    # name: (seqlens, prefixes, page_size, H, HV, K, V)
    "paged-uneven": ([300, 45, 0, 200, 7], [0, 100, 64, 250, 0], 64, 1, 2, 64, 64),
    "paged-one-long": ([700], [130], 128, 2, 4, 32, 48),
    "gpu-paged": ([3000, 450, 2000, 70], [0, 1000, 300, 256], 256, 2, 4, 128, 128),
}


def run_paged(comm, name, rng):
    """The paged call: prefixes, page boundaries inside every rank's
    tokens; each checkpoint must land in the pool of the rank holding its
    token, the final state in the last token's rank's pool."""
    seqlens, prefixes, page, H, HV, K, V = PAGED_CASES[name]
    rank, size = comm.rank, comm.size
    call = problems.paged_call(rng, seqlens, prefixes, page_size=page, H=H,
                               HV=HV, K=K, V=V, gate_domain="log")
    # Slow gates, as run_case's.
    call["g"] = -rng.uniform(0, 0.01, call["g"].shape).astype(np.float32)
    call["beta"] = rng.normal(-2, 1, call["beta"].shape).astype(np.float32)
    pools = [(rng.standard_normal(call["state_pool"].shape) * 0.1).astype(np.float32)
             for _ in range(size)]
    cu = call["cu_seqlens"]
    counts = split(int(cu[-1]), size, "uneven")
    offsets = np.concatenate([[0], np.cumsum(counts)])
    lo, hi = int(offsets[rank]), int(offsets[rank + 1])

    def owner(token):
        return int(np.searchsorted(offsets, token, side="right") - 1)

    ids, indptr, last = call["page_indices"], call["page_indptr"], call["last_page_len"]
    # The reference: each prefix page from its first new token's rank; the
    # pages each rank must write.
    initial = pools[0].copy()
    writes = [set() for _ in range(size)]
    for s in range(len(seqlens)):
        n = int(cu[s + 1] - cu[s])
        pages = [int(x) for x in ids[indptr[s]:indptr[s + 1]]]
        prefix = (len(pages) - 1) * page + int(last[s]) - n
        if n == 0:
            continue
        if prefix > 0:
            entry = pages[(prefix - 1) // page]
            initial[entry] = pools[owner(int(cu[s]))][entry]
        for x in range(prefix, prefix + n):
            if (x + 1) % page == 0:
                writes[owner(int(cu[s]) + x - prefix)].add(pages[(x + 1) // page - 1])
        writes[owner(int(cu[s + 1]) - 1)].add(pages[-1])
    round_tokens(call)
    ref_o, ref_pool, _ = R.paged_reference(
        call["q"], call["k"], call["v"], call["g"], call["beta"], None, cu,
        initial, ids, indptr, page, last, True, "log", True)

    mine = operands(dict(
        {n: call[n][lo:hi] for n in ("q", "k", "v", "g", "beta")},
        state_pool=pools[rank].copy(), page_indices=ids, page_indptr=indptr,
        last_page_len=last, cu_seqlens=cu))
    out = mine["v"][:0].new_full((hi - lo, HV, V), float("nan")) \
        if TORCH is not None else np.full((hi - lo, HV, V), np.nan, call["v"].dtype)
    got = kernel().chunk_gated_delta_rule_paged(
        mine["q"], mine["k"], mine["v"], mine["g"], mine["beta"],
        cu_seqlens=mine["cu_seqlens"], state_pool=mine["state_pool"],
        page_indices=mine["page_indices"], page_indptr=mine["page_indptr"],
        page_size=page, last_page_len=mine["last_page_len"],
        use_qk_l2norm_in_kernel=True, gate_domain="log", beta_is_logit=True,
        output=out, cp_group=GROUP)
    assert got is out
    o = host(out)
    assert np.isfinite(o.astype(np.float64)).all(), "o not all written"
    if hi > lo:
        err = R.rel_l2(o, ref_o[lo:hi])
        assert err <= TOL, "o error %g" % err
    problems.assert_pages(host(mine["state_pool"]), pools[rank], ref_pool,
                          writes[rank], TOL, "rank %d" % rank)
    return "tokens [%d, %d), pages written %s" % (lo, hi, sorted(writes[rank]))


def run_refusal(comm, name, rng):
    """A call refused on one rank is refused on every rank, no pool written
    (numpy operands)."""
    rank, size = comm.rank, comm.size
    call = problems.pool_call(rng, [100, 60])
    cu = call["cu_seqlens"]
    counts = split(int(cu[-1]), size, "even")
    offsets = np.concatenate([[0], np.cumsum(counts)])
    lo, hi = int(offsets[rank]), int(offsets[rank + 1])
    mine = {n: call[n][lo:hi] for n in ("q", "k", "v", "a", "b")}
    tables = call["cache_indices"], cu
    bad = size - 1
    if name == "refuse-dtype" and rank == bad:
        mine["a"] = mine["a"].astype(np.float64)
    if name == "refuse-tables" and rank == bad:
        tables = call["cache_indices"][::-1].copy(), cu
    if name == "refuse-count" and rank == bad:
        for n in mine:
            mine[n] = mine[n][:-1]
    pool = call["state_pool"].copy()
    try:
        gdn.compile(schedule="fused").gdn_extend_chunkwise(
            mine["q"], mine["k"], mine["v"], mine["a"], mine["b"],
            call["A_log"], call["dt_bias"], pool, *tables, cp_group=GROUP)
    except gdn.GDNArgumentError as e:
        message = str(e)
    else:
        raise AssertionError("the call was not refused")
    assert pool.tobytes() == call["state_pool"].tobytes(), "pool written"
    expected = {
        "refuse-dtype": "rank %d refused its call: " % bad if rank != bad
        else "'a'",
        "refuse-tables": "rank %d's differ from rank 0's" % bad,
        "refuse-count": "but cu_seqlens ends at %d" % int(cu[-1]),
    }[name]
    assert expected in message, message
    return "refused: " + message


def main():
    global TORCH, GROUP
    args = sys.argv[1:]
    if args[0] == "--torch":
        import torch
        import torch.distributed as dist
        TORCH = torch
        dist.init_process_group("gloo")
        GROUP = dist.group.WORLD
        args = args[1:]
    else:
        from mpi4py import MPI
        GROUP = MPI.COMM_WORLD
    comm = gdn.cp.communicator(GROUP)
    name = args[0]
    seed = comm.allgather_object(int.from_bytes(np.random.bytes(4), "little"))[0]
    rng = np.random.default_rng(seed)
    try:
        work = (run_refusal if name.startswith("refuse") else
                run_paged if name in PAGED_CASES else run_case)
        verdict = (True, work(comm, name, rng))
    except Exception:
        verdict = (False, traceback.format_exc())
    verdicts = comm.allgather_object(verdict)
    if comm.rank == 0:
        for rank, (ok, text) in enumerate(verdicts):
            print("case %s seed %d rank %d/%d: %s %s" % (
                name, seed, rank, comm.size, "PASS" if ok else "FAIL", text))
        print("verdict: %s" % ("PASS" if all(ok for ok, _ in verdicts)
                               else "FAIL"))
    sys.exit(0 if all(ok for ok, _ in verdicts) else 1)


if __name__ == "__main__":
    main()
