"""Refusals: an exception naming the argument and what was expected, and the
pool untouched (byte for byte)."""

import numpy as np
import pytest

import gdn
import problems


@pytest.fixture(scope="module")
def kernel():
    return gdn.compile(schedule="fused")


def refused(kernel, call, exception, match, interface="pool", **flags):
    before = call["state_pool"].copy()
    with pytest.raises(exception, match=match):
        if interface == "pool":
            kernel.gdn_extend_chunkwise(**call, **flags)
        else:
            rest = {k: v for k, v in call.items()
                    if k not in ("q", "k", "v", "g", "beta")}
            rest.update(flags)
            kernel.chunk_gated_delta_rule_paged(
                call["q"], call["k"], call["v"], call["g"], call["beta"], **rest)
    assert call["state_pool"].tobytes() == before.tobytes(), "the pool changed"


def pool_call():
    rng, _ = problems.seeded()
    return problems.pool_call(rng, [70, 20])


def paged_call(**kw):
    rng, _ = problems.seeded()
    return problems.paged_call(rng, [70, 20], [10, 0], **kw)


def test_wrong_dtype_is_a_type_error(kernel):
    call = pool_call()
    call["q"] = call["q"].astype(np.float32)
    refused(kernel, call, TypeError, r"'q' is F32\[90, 1, 64\]; expected dtype BF16 or F16")


def test_k_dtype_must_match_q(kernel):
    call = pool_call()
    call["k"] = call["k"].astype(np.float32)
    refused(kernel, call, TypeError, r"k F32\[90, 1, 64\] must have the dtype of q")


def test_unsupported_dtype(kernel):
    call = pool_call()
    call["a"] = call["a"].astype(np.int8)
    refused(kernel, call, TypeError, r"tensor 'a' has dtype int8")


def test_wrong_shape(kernel):
    call = pool_call()
    call["b"] = call["b"][:-1]
    refused(kernel, call, ValueError, r"tensor 'b' is F32\[89, 2\]; expected shape \[90, 2\]")


def test_cache_index_outside_the_pool(kernel):
    call = pool_call()
    call["cache_indices"][1] = 99
    refused(kernel, call, ValueError, r"cache_indices")


def test_chunk_size(kernel):
    refused(kernel, pool_call(), ValueError,
            r"chunk_size\) 48 is not supported: expected 32, 64 or 128",
            chunk_size=48)


def test_non_finite_gate(kernel):
    call = pool_call()
    call["a"][5, 1] = np.nan
    refused(kernel, call, ValueError, r"gate tensor 'a' .* non-finite value .* element 11")


def test_negative_linear_gate(kernel):
    call = paged_call(gate_domain="linear")
    call["g"][3, 0] = -0.25
    refused(kernel, call, ValueError,
            r"gate 'g' F32\[90, 2\] holds -0.25.*\(token 3, value head 0.*\[0, 1\]",
            interface="paged", gate_domain="linear")


def test_positive_log_gate(kernel):
    call = paged_call(gate_domain="log")
    call["g"][7, 1] = 0.5
    refused(kernel, call, ValueError, r"log-domain gate is a log decay <= 0",
            interface="paged", gate_domain="log")


def test_unchecked_gates_are_not_refused():
    call = paged_call(gate_domain="log")
    call["g"][7, 1] = 0.01
    gdn.compile(checked=False).chunk_gated_delta_rule_paged(
        call["q"], call["k"], call["v"], call["g"], call["beta"],
        **{k: v for k, v in call.items() if k not in ("q", "k", "v", "g", "beta")},
        gate_domain="log")


def test_inconsistent_page_table(kernel):
    call = paged_call()
    call["last_page_len"][0] = 0
    refused(kernel, call, ValueError, r"last_page_len", interface="paged",
            gate_domain="log")


def test_page_size_not_a_multiple_of_64(kernel):
    refused(kernel, paged_call(), ValueError, r"page_size", interface="paged",
            gate_domain="log", page_size=100)


def test_gate_domain_name(kernel):
    refused(kernel, paged_call(), ValueError, r"gate_domain is 'exp'",
            interface="paged", gate_domain="exp")


def test_non_contiguous_q(kernel):
    call = pool_call()
    wide = np.repeat(call["q"], 2, axis=2)
    call["q"] = wide[:, :, ::2]
    refused(kernel, call, ValueError, r"tensor 'q' .* strides .* contiguous")


def test_output_dtype(kernel):
    call = paged_call()
    out = np.empty(call["v"].shape, np.float32)
    refused(kernel, call, TypeError, r"tensor 'o' is F32.*dtype of v \(F16\)",
            interface="paged", gate_domain="log", output=out)


def test_pool_dtype(kernel):
    call = pool_call()
    call["state_pool"] = call["state_pool"].astype(np.float64)
    refused(kernel, call, TypeError, r"'state_pool' is F64.*expected dtype F32, BF16 or F16")


def test_not_a_tensor(kernel):
    call = pool_call()
    call["A_log"] = [0.0, 0.0]
    refused(kernel, call, TypeError, r"A_log: expected a tensor with __dlpack__")


def test_bad_schedule():
    with pytest.raises(ValueError, match="schedule 'no-such-schedule' is neither"):
        gdn.compile(schedule="no-such-schedule")
    with pytest.raises(ValueError, match="v-block=96"):
        gdn.compile(schedule="fused v-block=96")
