"""Plans and slots on host (numpy) tensors, against the float64 reference.

A call whose tensors have the layout of an earlier call runs that call's
plan (gdn/_plan.py) on its own addresses, and a step's slots carry its
index tensors to every layer. On the host a plan's run takes the whole
checked path, so these tests hold the binding's side: layouts keyed right,
addresses rebound, refusals made by the plan's run, slots refused for
another step. test_gpu.py repeats them on the device's lean path.
"""

import numpy as np
import pytest

import gdn
import problems
import reference as R
from gdn import _plan

TOL = 5e-3


@pytest.fixture(autouse=True)
def poisoned_outputs(monkeypatch):
    from gdn import _kernel
    monkeypatch.setattr(_kernel, "_empty_like",
                        lambda v, name: np.full(v.shape, np.nan, v.dtype))


def slots_for(tables):
    return gdn.gdn_paged_prefill_slots(
        tables["cu_seqlens"], tables["page_indices"], tables["page_indptr"],
        tables["page_size"], tables["last_page_len"])


run_layer = problems.run_paged_layer


def check_layer(layer, tables, before, o, context):
    ref_o, ref_pool, written = R.paged_reference(
        layer["q"], layer["k"], layer["v"], layer["g"], layer["beta"], None,
        tables["cu_seqlens"], before, tables["page_indices"],
        tables["page_indptr"], tables["page_size"], tables["last_page_len"],
        True, "log", True)
    assert np.isfinite(o.astype(np.float64)).all(), "%s: o not all written" % context
    err = R.rel_l2(o, ref_o)
    assert err <= TOL, "%s: o error %g" % (context, err)
    problems.assert_pages(layer["state_pool"], before, ref_pool, written, TOL, context)


def test_a_step_of_layers_shares_one_plan_and_slots():
    rng, seed = problems.seeded()
    tables, layers = problems.paged_step(rng, [150, 64, 0, 90], [30, 128, 40, 0], 3)
    kernel = gdn.compile(schedule="fused")
    slots = slots_for(tables)
    for i, layer in enumerate(layers):
        before = layer["state_pool"].copy()
        o = run_layer(kernel, layer, tables, slots)
        check_layer(layer, tables, before, o, "seed %d layer %d" % (seed, i))
    assert len(kernel._plans) == 1


def test_int32_tables_and_views_of_the_slots_tables():
    """Slots made from int32 tables serve calls passing those tables or
    views of the same memory."""
    rng, seed = problems.seeded()
    tables, layers = problems.paged_step(rng, [100, 70], [10, 0], 2)
    for name in ("cu_seqlens", "page_indices", "page_indptr", "last_page_len"):
        tables[name] = tables[name].astype(np.int32)
    kernel = gdn.compile(schedule="fused")
    slots = slots_for(tables)
    views = dict(tables, cu_seqlens=tables["cu_seqlens"][:])
    for i, (layer, t) in enumerate(zip(layers, (tables, views))):
        before = layer["state_pool"].copy()
        o = run_layer(kernel, layer, t, slots)
        check_layer(layer, tables, before, o, "seed %d layer %d" % (seed, i))


def test_calls_without_slots_get_a_plan_per_layout():
    rng, seed = problems.seeded()
    kernel = gdn.compile(schedule="fused")
    for i, (seqlens, prefixes) in enumerate([([100], [0]), ([64, 20], [0, 5]),
                                             ([100], [0])]):
        tables, layers = problems.paged_step(rng, seqlens, prefixes, 1)
        before = layers[0]["state_pool"].copy()
        o = run_layer(kernel, layers[0], tables)
        check_layer(layers[0], tables, before, o, "seed %d call %d" % (seed, i))
    # The third call's layout is the first's (T, B, pool rows alike).
    assert len(kernel._plans) == 2


def test_the_plan_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(_plan, "PLANS_KEPT", 2)
    rng, seed = problems.seeded()
    kernel = gdn.compile(schedule="fused")
    for i, T in enumerate([40, 50, 60, 40]):
        tables, layers = problems.paged_step(rng, [T], [0], 1)
        before = layers[0]["state_pool"].copy()
        o = run_layer(kernel, layers[0], tables)
        check_layer(layers[0], tables, before, o, "seed %d call %d" % (seed, i))
        assert len(kernel._plans) <= 2


def test_slots_of_another_step_are_refused():
    rng, _ = problems.seeded()
    tables, layers = problems.paged_step(rng, [100], [10], 1)
    slots = slots_for(dict(tables, cu_seqlens=tables["cu_seqlens"].copy()))
    before = layers[0]["state_pool"].copy()
    with pytest.raises(gdn.GDNValueError,
                       match=r"GDNPagedPrefillSlots\(.*\) were made for another "
                             r"cu_seqlens \(int64\[2\] at 0x[0-9a-f]+\), the call "
                             r"passes int64\[2\] at 0x"):
        run_layer(gdn.compile(schedule="fused"), layers[0], tables, slots)
    assert layers[0]["state_pool"].tobytes() == before.tobytes()


def test_slots_of_another_page_size_are_refused():
    rng, _ = problems.seeded()
    tables, layers = problems.paged_step(rng, [100], [10], 1)
    slots = slots_for(dict(tables, page_size=128))
    with pytest.raises(gdn.GDNValueError, match=r"page_size = 64, but "
                       r"GDNPagedPrefillSlots\(.*\) were made for page_size = 128"):
        run_layer(gdn.compile(schedule="fused"), layers[0], tables, slots)


def test_slots_of_the_other_interface_are_refused():
    rng, _ = problems.seeded()
    tables, layers = problems.paged_step(rng, [100], [10], 1)
    pool_slots = gdn.gdn_extend_chunkwise_slots(np.array([0]), tables["cu_seqlens"])
    with pytest.raises(gdn.GDNTypeError, match=r"slots is GDNExtendSlots; expected "
                       r"what gdn_paged_prefill_slots\(\) returns"):
        run_layer(gdn.compile(schedule="fused"), layers[0], tables, pool_slots)


def test_checked_slots_refuse_tables_changed_in_place():
    """Host calls are checked: a table changed in place after the slots
    were made is refused."""
    rng, _ = problems.seeded()
    tables, layers = problems.paged_step(rng, [150, 64], [30, 0], 2)
    kernel = gdn.compile(schedule="fused")
    slots = slots_for(tables)
    run_layer(kernel, layers[0], tables, slots)
    then = list(tables["last_page_len"])
    tables["last_page_len"][0] -= 1          # a table that is still valid
    now = list(tables["last_page_len"])
    before = layers[1]["state_pool"].copy()
    with pytest.raises(gdn.GDNValueError,
                       match=r"the values of last_page_len changed since "
                             r"GDNPagedPrefillSlots\(.*\) were made "
                             r"\(\[%d, %d\] then, \[%d, %d\] now\)" % (*then, *now)):
        run_layer(kernel, layers[1], tables, slots)
    assert layers[1]["state_pool"].tobytes() == before.tobytes()


def test_a_planned_call_still_refuses_aliasing():
    """The second call of a layout runs the first's plan; an output laid
    over q (with a fresh output's layout) is refused there."""
    rng, _ = problems.seeded()
    tables, layers = problems.paged_step(rng, [100], [10], 2, H=2, HV=2)
    kernel = gdn.compile(schedule="fused")
    run_layer(kernel, layers[0], tables)
    assert len(kernel._plans) == 1
    before, q = layers[1]["state_pool"].copy(), layers[1]["q"].copy()
    with pytest.raises(gdn.GDNValueError, match=r"tensor 'q' .* overlaps 'o'"):
        run_layer(kernel, layers[1], tables, output=layers[1]["q"])
    assert len(kernel._plans) == 1
    assert layers[1]["state_pool"].tobytes() == before.tobytes()
    assert layers[1]["q"].tobytes() == q.tobytes()


def test_pool_call_with_slots():
    rng, seed = problems.seeded()
    kernel = gdn.compile(schedule="fused")
    calls = [problems.pool_call(rng, [80, 0, 45]) for _ in range(2)]
    for call in calls[1:]:
        call["cache_indices"] = calls[0]["cache_indices"]
        call["cu_seqlens"] = calls[0]["cu_seqlens"]
    slots = gdn.gdn_extend_chunkwise_slots(calls[0]["cache_indices"],
                                           calls[0]["cu_seqlens"])
    for i, call in enumerate(calls):
        before = call["state_pool"].copy()
        o = kernel.gdn_extend_chunkwise(**call, slots=slots)
        ref_o, ref_pool = R.pool_reference(
            call["q"], call["k"], call["v"], call["a"], call["b"],
            call["A_log"], call["dt_bias"], before, call["cache_indices"],
            call["cu_seqlens"])
        context = "seed %d layer %d" % (seed, i)
        assert np.isfinite(o.astype(np.float64)).all(), context
        assert R.rel_l2(o, ref_o) <= TOL, context
        cu = call["cu_seqlens"]
        written = {int(r) for s, r in enumerate(call["cache_indices"])
                   if cu[s + 1] > cu[s]}
        problems.assert_pages(call["state_pool"], before, ref_pool, written,
                              TOL, context)
    assert len(kernel._plans) == 1


def test_checked_slots_refuse_a_table_changed_before_the_first_call():
    rng, _ = problems.seeded()
    tables, layers = problems.paged_step(rng, [150, 64], [30, 0], 1)
    slots = slots_for(tables)
    tables["last_page_len"][0] -= 1
    before = layers[0]["state_pool"].copy()
    with pytest.raises(gdn.GDNValueError, match=r"the values of last_page_len "
                       r"changed since GDNPagedPrefillSlots\(.*\) were made"):
        run_layer(gdn.compile(schedule="fused"), layers[0], tables, slots)
    assert layers[0]["state_pool"].tobytes() == before.tobytes()


def test_unchecked_calls_read_the_tables_as_the_slots_were_made():
    """Slots copy the tables when they are made; the calls read the copy."""
    rng, seed = problems.seeded()
    tables, layers = problems.paged_step(rng, [150, 64], [30, 0], 1)
    made = {n: (t.copy() if isinstance(t, np.ndarray) else t) for n, t in tables.items()}
    slots = slots_for(tables)
    tables["last_page_len"][0] -= 1          # after the slots: not seen
    before = layers[0]["state_pool"].copy()
    o = run_layer(gdn.compile(schedule="fused", checked=False), layers[0], tables, slots)
    check_layer(layers[0], made, before, o, "seed %d" % seed)


def test_threads_sharing_a_kernel_and_a_layout():
    """Calls of one layout from several threads each get their own
    tensors' results (a plan runs one call at a time)."""
    import threading
    rng, seed = problems.seeded()
    tables, layers = problems.paged_step(rng, [70, 30], [10, 0], 8)
    kernel = gdn.compile(schedule="fused")
    befores = [layer["state_pool"].copy() for layer in layers]
    outputs, errors = [None] * len(layers), []

    def work(i):
        try:
            outputs[i] = run_layer(kernel, layers[i], tables)
        except Exception as e:          # reported below, with the layer
            errors.append((i, e))
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(layers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i, (layer, before, o) in enumerate(zip(layers, befores, outputs)):
        check_layer(layer, tables, before, o, "seed %d layer %d" % (seed, i))
    assert len(kernel._plans) == 1


def _no_full_path(monkeypatch):
    """From here on a call that takes the full path (Kernel._call) fails."""
    from gdn import _kernel

    def full_path(*args, **kwargs):
        raise AssertionError("the call took the full path")
    monkeypatch.setattr(_kernel.Kernel, "_call", full_path)


def test_unchecked_layer_calls_with_slots_run_the_remembered_plan(monkeypatch):
    """With slots, an unchecked call of a layout seen before runs its plan
    straight from the arguments (Kernel._run_remembered), every result
    still right."""
    rng, seed = problems.seeded()
    tables, layers = problems.paged_step(rng, [150, 64, 0, 90], [30, 128, 40, 0], 4)
    kernel = gdn.compile(schedule="fused", checked=False)
    slots = slots_for(tables)
    before = layers[0]["state_pool"].copy()
    o = run_layer(kernel, layers[0], tables, slots)
    check_layer(layers[0], tables, before, o, "seed %d layer 0" % seed)
    assert len(slots._remembered) == 1
    _no_full_path(monkeypatch)
    for i, layer in enumerate(layers[1:], 1):
        before = layer["state_pool"].copy()
        o = run_layer(kernel, layer, tables, slots)
        check_layer(layer, tables, before, o, "seed %d layer %d" % (seed, i))


def test_remembered_plans_keep_the_plans_refusals(monkeypatch):
    """An output laid over q is refused on the short path as on the full
    one (gdn_plan_run checks aliasing), and nothing is written."""
    rng, _ = problems.seeded()
    tables, layers = problems.paged_step(rng, [100], [10], 3, H=2, HV=2)
    kernel = gdn.compile(schedule="fused", checked=False)
    slots = slots_for(tables)
    run_layer(kernel, layers[0], tables, slots, output=layers[0]["v"].copy())
    _no_full_path(monkeypatch)
    run_layer(kernel, layers[1], tables, slots, output=layers[1]["v"].copy())
    before, q = layers[2]["state_pool"].copy(), layers[2]["q"].copy()
    with pytest.raises(gdn.GDNValueError, match=r"tensor 'q' .* overlaps 'o'"):
        run_layer(kernel, layers[2], tables, slots, output=layers[2]["q"])
    assert layers[2]["state_pool"].tobytes() == before.tobytes()
    assert layers[2]["q"].tobytes() == q.tobytes()


def test_what_is_not_remembered_takes_the_full_path():
    """Checked calls, other arguments, other layouts and plans the Kernel
    dropped take the full path; each gets the right result."""
    rng, seed = problems.seeded()
    tables, layers = problems.paged_step(rng, [150, 64], [30, 0], 6)
    checked = gdn.compile(schedule="fused")          # host: checked
    slots = slots_for(tables)
    for i in range(2):
        before = layers[i]["state_pool"].copy()
        o = run_layer(checked, layers[i], tables, slots)
        check_layer(layers[i], tables, before, o, "seed %d checked %d" % (seed, i))
    assert len(slots._remembered) == 0
    kernel = gdn.compile(schedule="fused", checked=False)
    context = "seed %d" % seed
    before = layers[2]["state_pool"].copy()
    check_layer(layers[2], tables, before, run_layer(kernel, layers[2], tables, slots),
                context)
    # The same layout with beta_is_logit=False: other arguments, another plan.
    layer = dict(layers[3], beta=1 / (1 + np.exp(-layers[3]["beta"])))
    before = layer["state_pool"].copy()
    o = run_layer(kernel, layer, tables, slots, beta_is_logit=False)
    check_layer(layers[3], tables, before, o, context + " beta not logit")
    assert len(slots._remembered) == 2
    # A pool of more pages: another layout.
    layer = dict(layers[4], state_pool=np.concatenate(
        [layers[4]["state_pool"], layers[4]["state_pool"][:1]]))
    before = layer["state_pool"].copy()
    check_layer(layer, tables, before, run_layer(kernel, layer, tables, slots),
                context + " larger pool")
    assert len(slots._remembered) == 3
    # The Kernel drops its plans: the remembered ones are not run.
    kernel._plans.clear()
    before = layers[5]["state_pool"].copy()
    check_layer(layers[5], tables, before, run_layer(kernel, layers[5], tables, slots),
                context + " after the plans were dropped")


def test_a_kernel_made_checked_checks_remembered_calls():
    rng, _ = problems.seeded()
    tables, layers = problems.paged_step(rng, [150, 64], [30, 0], 2)
    kernel = gdn.compile(schedule="fused", checked=False)
    slots = slots_for(tables)
    run_layer(kernel, layers[0], tables, slots)
    kernel.checked = True
    tables["last_page_len"][0] -= 1
    before = layers[1]["state_pool"].copy()
    with pytest.raises(gdn.GDNValueError, match=r"the values of last_page_len "
                       r"changed since GDNPagedPrefillSlots"):
        run_layer(kernel, layers[1], tables, slots)
    assert layers[1]["state_pool"].tobytes() == before.tobytes()


def test_a_bool_scale_is_refused_after_a_remembered_call():
    """True == 1 == 1.0 as dict keys; the short path takes float scales
    only, so the full path still refuses a bool."""
    rng, _ = problems.seeded()
    tables, layers = problems.paged_step(rng, [100], [0], 2)
    kernel = gdn.compile(schedule="fused", checked=False)
    slots = slots_for(tables)
    call = lambda layer, scale: kernel.chunk_gated_delta_rule_paged(
        layer["q"], layer["k"], layer["v"], layer["g"], layer["beta"], scale,
        cu_seqlens=tables["cu_seqlens"], state_pool=layer["state_pool"],
        page_indices=tables["page_indices"], page_indptr=tables["page_indptr"],
        page_size=tables["page_size"], last_page_len=tables["last_page_len"],
        gate_domain="log", beta_is_logit=True, slots=slots)
    call(layers[0], 1.0)
    assert len(slots._remembered) == 1
    with pytest.raises(gdn.GDNTypeError, match=r"scale is True"):
        call(layers[1], True)


def test_unchecked_pool_calls_with_slots_run_the_remembered_plan(monkeypatch):
    rng, seed = problems.seeded()
    kernel = gdn.compile(schedule="fused", checked=False)
    calls = [problems.pool_call(rng, [80, 0, 45]) for _ in range(3)]
    for call in calls[1:]:
        call["cache_indices"] = calls[0]["cache_indices"]
        call["cu_seqlens"] = calls[0]["cu_seqlens"]
    slots = gdn.gdn_extend_chunkwise_slots(calls[0]["cache_indices"],
                                           calls[0]["cu_seqlens"])
    for i, call in enumerate(calls):
        if i == 1:
            assert len(slots._remembered) == 1
            _no_full_path(monkeypatch)
        before = call["state_pool"].copy()
        o = kernel.gdn_extend_chunkwise(**call, slots=slots)
        ref_o, ref_pool = R.pool_reference(
            call["q"], call["k"], call["v"], call["a"], call["b"],
            call["A_log"], call["dt_bias"], before, call["cache_indices"],
            call["cu_seqlens"])
        context = "seed %d layer %d" % (seed, i)
        assert np.isfinite(o.astype(np.float64)).all(), context
        assert R.rel_l2(o, ref_o) <= TOL, context
        cu = call["cu_seqlens"]
        written = {int(r) for s, r in enumerate(call["cache_indices"])
                   if cu[s + 1] > cu[s]}
        problems.assert_pages(call["state_pool"], before, ref_pool, written,
                              TOL, context)
