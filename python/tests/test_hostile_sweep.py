"""A random sweep of hostile calls on host tensors: each draw takes a valid
call of either interface and changes one thing (an index entry, a scalar,
a dtype, a shape, a gate value, an overlap between tensors) to a value an
attacker of a serving stack would try. Every call must either be refused
with a GDNArgumentError and leave the pool byte-identical, or run and
match the float64 reference on o and on every row or page it writes, with
no other row changed. Nothing else (a crash, a GDNError, another
exception) is allowed. Fresh seeds every run; the failing draw's seed and
change are in the message."""

import os

import numpy as np
import pytest

import gdn
import problems
import reference as R

TOL = 5e-3
DRAWS = int(os.environ.get("GDN_HOSTILE_DRAWS", 160))

INT_EXTREMES = [-2**63, -2**31 - 1, -1, 0, 1, 63, 64, 65, 2**31 - 1, 2**31,
                2**32 + 1, 2**62, 2**63 - 1]
FLOAT_EXTREMES = [-3.4028235e38, -1e30, -1e4, -201.0, -200.0, -88.0, -1.0,
                  -1e-45, -0.0, 0.0, 1e-45, 1.0, 88.0, 89.0, 1e4, 1e30,
                  3.4028235e38, np.nan, np.inf, -np.inf]
BETA_EXTREMES = [0.0, -0.0, 1e-45, 1.0, 2.0, np.nan, np.inf, -np.inf]
SCALARS = [0, -64, 100, 2**30, 2**30 + 64, 2**62, 2**63, 2**64 + 64, -2**63,
           64.0, 64.5, "64", True, None, np.int64(128), np.uint64(64), 1j]


@pytest.fixture(scope="module", params=["fused", "split-seq segment-chunks=1"])
def kernel(request):
    """The one-pass schedule and split-seq with a segment per chunk (its
    transitions, composition and replay on every multi-chunk sequence)."""
    return gdn.compile(schedule=request.param)


def paged_base(rng):
    B = int(rng.integers(1, 4))
    seqlens = [int(x) for x in rng.integers(0, 150, B)]
    prefixes = [int(x) for x in rng.integers(0, 100, B)]
    ps = int(rng.choice([64, 128]))
    call = problems.paged_call(rng, seqlens, prefixes, page_size=ps)
    call["beta"] = rng.uniform(0, 1, call["beta"].shape).astype(np.float32)
    return call


def index_names(call):
    return [n for n in ("cu_seqlens", "cache_indices", "page_indices",
                        "page_indptr", "last_page_len") if n in call]


def gate_names(call):
    return [n for n in ("a", "b", "g", "beta", "A_log", "dt_bias") if n in call]


def mutate(rng, call, interface):
    """Changes one thing; returns (what, flags for the call, output or None)."""
    kind = rng.choice(["index", "index", "scalar", "gate", "gate", "dtype",
                       "shape", "alias", "qkv"])
    flags, output = {}, None
    if kind == "index":
        name = str(rng.choice(index_names(call)))
        x = call[name].copy()
        if x.size:
            x[int(rng.integers(x.size))] = int(rng.choice(INT_EXTREMES))
        call[name] = x
        what = "%s = %s" % (name, list(x))
    elif kind == "scalar":
        value = SCALARS[int(rng.integers(len(SCALARS)))]
        name = "page_size" if interface == "paged" else "chunk_size"
        if interface == "paged" and rng.random() < 0.3:
            name, value = "scale", FLOAT_EXTREMES[int(rng.integers(len(FLOAT_EXTREMES)))]
        if name == "page_size":
            call["page_size"] = value
        else:
            flags[name] = value
        what = "%s = %r" % (name, value)
    elif kind == "gate":
        name = str(rng.choice(gate_names(call)))
        x = call[name].copy()
        mask = rng.random(x.shape) < rng.choice([0.05, 0.5, 1.0])
        # beta is not a logit in the paged call: an update strength beyond
        # [0, 2] makes the recurrence itself grow without bound (the state
        # leaves f32's range, and the float64 reference's, after some tokens).
        values = BETA_EXTREMES if name == "beta" else FLOAT_EXTREMES
        x[mask] = values[int(rng.integers(len(values)))]
        call[name] = x
        what = "%s with %d entries = %r" % (name, mask.sum(), x[mask][:1])
    elif kind == "dtype":
        name = str(rng.choice(list(call.keys() - {"page_size"})))
        dtype = rng.choice([np.float16, np.float32, np.float64, np.int32,
                            np.int64, np.int8, np.uint16, np.bool_])
        with np.errstate(all="ignore"):
            call[name] = call[name].astype(dtype)
        what = "%s as %s" % (name, np.dtype(dtype).name)
    elif kind == "shape":
        name = str(rng.choice(list(call.keys() - {"page_size"})))
        x = call[name]
        choice = int(rng.integers(4))
        if choice == 0 and x.ndim:
            x = x[..., :max(x.shape[-1] - 1, 0)]
        elif choice == 1:
            x = x[None]
        elif choice == 2 and x.ndim:
            x = np.concatenate([x, x[:1]], 0) if x.shape[0] else x[None]
        else:
            x = np.ascontiguousarray(x.T)
        call[name] = x
        what = "%s reshaped to %s" % (name, x.shape)
    elif kind == "alias":
        written = str(rng.choice(["state_pool", "o"]))
        other = str(rng.choice([n for n in call if n not in ("page_size", "state_pool")]))
        target = call["state_pool"] if written == "state_pool" else None
        if target is None:
            target = np.zeros(call["v"].shape, call["v"].dtype)
            output = target
        src = call[other] if other != "o" else call["v"]
        nbytes = src.nbytes
        raw = target.reshape(-1).view(np.uint8)
        if nbytes == 0 or nbytes > raw.size:
            what = "no alias (%s does not fit)" % other
        else:
            start = int(rng.integers(0, (raw.size - nbytes) // 8 + 1)) * 8
            view = raw[start:start + nbytes].view(src.dtype).reshape(src.shape)
            view[...] = src
            call[other] = view
            what = "%s inside %s at byte %d" % (other, written, start)
    else:   # q / k / v values
        name = str(rng.choice(["q", "k", "v"]))
        x = call[name].copy()
        value = rng.choice([65504.0, -65504.0, 6e-8, 0.0, -0.0, 1000.0,
                            np.inf, np.nan])
        if name == "v" and abs(value) > 1000:
            value = 1000.0
        mask = rng.random(x.shape) < rng.choice([0.01, 1.0])
        x[mask] = value
        call[name] = x
        what = "%s with %d entries = %r" % (name, mask.sum(), value)
    return what, flags, output


def run(kernel, call, interface, flags, output):
    if interface == "pool":
        return kernel.gdn_extend_chunkwise(**call, **flags, output=output)
    kw = {n: x for n, x in call.items() if n not in ("q", "k", "v", "g", "beta")}
    return kernel.chunk_gated_delta_rule_paged(
        call["q"], call["k"], call["v"], call["g"], call["beta"],
        use_qk_l2norm_in_kernel=True, gate_domain="log", output=output,
        **kw, **flags)


def reference(call, before, interface, flags):
    if interface == "pool":
        o, pool = R.pool_reference(
            call["q"], call["k"], call["v"], call["a"], call["b"], call["A_log"],
            call["dt_bias"], before, call["cache_indices"], call["cu_seqlens"])
        cu = call["cu_seqlens"]
        written = {int(r) for s, r in enumerate(call["cache_indices"])
                   if cu[s + 1] > cu[s]}
        return o, pool, written
    return R.paged_reference(
        call["q"], call["k"], call["v"], call["g"], call["beta"],
        flags.get("scale"), call["cu_seqlens"], before, call["page_indices"],
        call["page_indptr"], int(call["page_size"]), call["last_page_len"],
        True, "log", False)


def test_hostile_sweep(kernel):
    rng, seed = problems.seeded()
    outcomes = {"refused": 0, "ran": 0}
    for draw in range(DRAWS):
        interface = "pool" if draw % 2 else "paged"
        if interface == "pool":
            call = problems.pool_call(rng, [int(x) for x in rng.integers(0, 150, int(rng.integers(1, 4)))])
        else:
            call = paged_base(rng)
        what, flags, output = mutate(rng, call, interface)
        where = "seed %d draw %d (%s call, %s)" % (seed, draw, interface, what)
        pool = call["state_pool"]
        before = np.array(pool, copy=True)
        try:
            o = run(kernel, call, interface, flags, output)
        except gdn.GDNArgumentError as e:
            assert str(e), where
            assert np.array(pool).tobytes() == before.tobytes(), \
                "%s: refused (%s) but the pool changed" % (where, e)
            outcomes["refused"] += 1
            continue
        except Exception as e:   # a crash-free failure of another kind
            pytest.fail("%s: %s: %s" % (where, type(e).__name__, e))
        outcomes["ran"] += 1
        ref_o, ref_pool, written = reference(call, before, interface, flags)
        # o is the reference rounded to o's dtype: where that overflows
        # (a scale of 1e30), the same infinity; elsewhere within TOL.
        with np.errstate(over="ignore"):
            rounded = ref_o.astype(o.dtype).astype(np.float64)
        o = np.asarray(o, np.float64)
        assert not np.isnan(o).any(), "%s: o has NaN" % where
        big = np.isinf(rounded)
        assert (o[big] == rounded[big]).all(), "%s: o differs where it overflows" % where
        assert np.isfinite(o[~big]).all(), "%s: o is not finite" % where
        err = R.rel_l2(o[~big], ref_o[~big])
        assert err <= TOL, "%s: o error %g" % (where, err)
        problems.assert_pages(pool, before, ref_pool, written, TOL, where)
    print("hostile sweep, seed %d: %s" % (seed, outcomes))
    # Both outcomes occur in every sweep, so it tests what it claims.
    assert outcomes["refused"] > DRAWS // 4 and outcomes["ran"] > DRAWS // 10, outcomes
