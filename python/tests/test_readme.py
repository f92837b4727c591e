"""The README's Python examples run as written and do what they say."""

import os
import re
import textwrap

import numpy as np

import reference as R

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def test_readme_examples():
    text = open(README).read()
    blocks = [textwrap.dedent(b) for b in
              re.findall(r"```python\n(.*?)```", text, re.S)]
    assert len(blocks) == 3, ("the README shows one example per seed "
                              "function and a serving step")
    scope = {}
    exec(blocks[0], scope)                                   # pool interface
    o, pool = scope["o"], scope["pool"]
    first = pool.copy()
    ref_o, ref_pool = R.pool_reference(
        scope["q"], scope["k"], scope["v"], scope["a"], scope["b"],
        scope["A_log"], scope["dt_bias"], np.zeros_like(pool), [3], [0, 100])
    assert R.rel_l2(o, ref_o) <= 5e-3
    assert R.rel_l2(pool[3], ref_pool[3]) <= 5e-3
    exec(blocks[1], scope)                                   # paged interface
    o = scope["o"]
    ref_o, ref_pool, written = R.paged_reference(
        scope["q"], scope["k"], scope["v"], scope["g"], scope["beta"], None,
        [0, 100], first, [5, 6], [0, 2], 64, [36], True, "log", False)
    assert written == {5, 6}
    assert R.rel_l2(o, ref_o) <= 5e-3
    for row in range(pool.shape[0]):
        if row in written:
            assert R.rel_l2(pool[row], ref_pool[row]) <= 5e-3
        else:
            assert (pool[row] == first[row]).all()
    exec(blocks[2], scope)                                   # a serving step
    ref_o, ref_pool, written = R.paged_reference(
        scope["q"], scope["k"], scope["v"], scope["g"], scope["beta"], None,
        [0, 100], np.zeros_like(first), [5, 6], [0, 2], 64, [36], True, "log",
        False)
    for o, layer_pool in zip(scope["outs"], scope["pools"]):
        assert R.rel_l2(o, ref_o) <= 5e-3
        for row in range(layer_pool.shape[0]):
            if row in written:
                assert R.rel_l2(layer_pool[row], ref_pool[row]) <= 5e-3
            else:
                assert (layer_pool[row] == 0).all()
