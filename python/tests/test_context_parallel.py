"""Context parallelism on the CPU: the pool and paged calls with cp_group,
run by 2 and 4 processes under mpirun (Open MPI, Debian's python3-mpi4py),
each rank checked by cp_worker.py against the float64 reference of the
whole step."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gdn
import gdn.cp
import problems
import reference as R

try:
    import mpi4py  # noqa: F401
    MPIRUN = shutil.which("mpirun")
except ImportError:
    MPIRUN = None
needs_mpi = pytest.mark.skipif(
    MPIRUN is None, reason="needs mpi4py and mpirun (python3-mpi4py)")

HERE = Path(__file__).resolve().parent


class Alone(gdn.cp.Communicator):
    """A group of one: the interface without MPI."""

    def allgather_object(self, obj):
        return [obj]

    def allgather_array(self, array):
        return [array]


def test_group_of_one_is_the_plain_call():
    """A single rank holds every token: the same result as the call
    without cp_group, within the float64 reference's bound."""
    rng = np.random.default_rng()
    call = problems.pool_call(rng, [150, 0, 70])
    kernel = gdn.compile(schedule="fused")
    plain_pool, cp_pool = call["state_pool"].copy(), call["state_pool"].copy()
    args = [call[n] for n in ("q", "k", "v", "a", "b", "A_log", "dt_bias")]
    tables = (call["cache_indices"], call["cu_seqlens"])
    o = kernel.gdn_extend_chunkwise(*args, plain_pool, *tables)
    o_cp = kernel.gdn_extend_chunkwise(*args, cp_pool, *tables, cp_group=Alone())
    ref_o, ref_pool = R.pool_reference(*args, call["state_pool"], *tables)
    assert R.rel_l2(o_cp, ref_o) <= 5e-3
    assert np.array_equal(o_cp, o) and np.array_equal(cp_pool, plain_pool)


def test_cp_group_refusals():
    rng = np.random.default_rng()
    call = problems.pool_call(rng, [40])
    kernel = gdn.compile(schedule="fused")
    args = [call[n] for n in ("q", "k", "v", "a", "b", "A_log", "dt_bias",
                              "state_pool", "cache_indices", "cu_seqlens")]
    before = call["state_pool"].copy()
    with pytest.raises(gdn.GDNArgumentError, match="expected an mpi4py "
                       "communicator, a torch.distributed process group"):
        kernel.gdn_extend_chunkwise(*args, cp_group=object())
    slots = gdn.gdn_extend_chunkwise_slots(call["cache_indices"], call["cu_seqlens"])
    with pytest.raises(gdn.GDNArgumentError, match="slots and cp_group"):
        kernel.gdn_extend_chunkwise(*args, slots=slots, cp_group=Alone())
    with pytest.raises(gdn.GDNArgumentError, match="ranks hold 39 tokens"):
        kernel.gdn_extend_chunkwise(*[a[:-1] if i < 5 else a
                                      for i, a in enumerate(args)],
                                    cp_group=Alone())
    assert call["state_pool"].tobytes() == before.tobytes()


def run_worker(ranks, case):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE.parent), str(HERE)] + env.get("PYTHONPATH", "").split(os.pathsep))
    # Open MPI refuses root unless told (CI runs as root); threads per rank
    # stay 1 so that 4 ranks fit 2 cores.
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1")
    done = subprocess.run(
        [MPIRUN, "--oversubscribe", "-n", str(ranks), sys.executable,
         str(HERE / "cp_worker.py"), case],
        cwd=HERE, env=env, capture_output=True, text=True, timeout=600)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text
    assert "verdict: PASS" in done.stdout, text
    assert done.stdout.count(": PASS ") == ranks, text


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
@pytest.mark.parametrize("case", ["uneven", "even", "one-long"])
def test_slices_against_reference(ranks, case):
    """Uneven slices, a slice shorter than a chunk, an empty rank (from 3
    ranks), chunks of 32, one sequence across every rank."""
    run_worker(ranks, case)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
@pytest.mark.parametrize("case", ["paged-uneven", "paged-one-long"])
def test_paged_checkpoints_on_their_ranks(ranks, case):
    """The paged call: prefixes, page boundaries inside every rank's
    tokens; each page's state in the pool of the rank holding its token,
    no other page of any pool changed."""
    run_worker(ranks, case)


@needs_mpi
def test_two_map_calls_when_rows_exceed_512():
    """K 256, V 320: the map runs as two calls; at 4 ranks the last one
    composes a map of the third's."""
    run_worker(4, "wide")


@needs_mpi
@pytest.mark.parametrize("case", ["refuse-dtype", "refuse-tables", "refuse-count"])
def test_refused_on_every_rank(case):
    """One rank's bad call is refused on all ranks, naming it; no pool is
    written."""
    run_worker(2, case)
