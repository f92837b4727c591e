"""Context parallelism on the CPU: the pool and paged calls with cp_group,
run by 2 and 4 processes under mpirun (Open MPI, Debian's python3-mpi4py),
each rank checked by cp_worker.py against the float64 reference of the
whole step."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mpi4py", reason="needs mpi4py (python3-mpi4py)")
MPIRUN = shutil.which("mpirun")
pytestmark = pytest.mark.skipif(MPIRUN is None, reason="needs mpirun (Open MPI)")

HERE = Path(__file__).resolve().parent


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


@pytest.mark.parametrize("ranks", [2, 4])
@pytest.mark.parametrize("case", ["uneven", "even", "one-long"])
def test_slices_against_reference(ranks, case):
    """Uneven slices, a slice shorter than a chunk, an empty rank (from 3
    ranks), chunks of 32, one sequence across every rank."""
    run_worker(ranks, case)


@pytest.mark.parametrize("ranks", [2, 4])
@pytest.mark.parametrize("case", ["paged-uneven", "paged-one-long"])
def test_paged_checkpoints_on_their_ranks(ranks, case):
    """The paged call: prefixes, page boundaries inside every rank's
    tokens; each page's state in the pool of the rank holding its token,
    no other page of any pool changed."""
    run_worker(ranks, case)


def test_two_map_calls_when_rows_exceed_512():
    """K 256, V 320: the map runs as two calls; at 4 ranks the last one
    composes a map of the third's."""
    run_worker(4, "wide")


@pytest.mark.parametrize("case", ["refuse-dtype", "refuse-tables", "refuse-count"])
def test_refused_on_every_rank(case):
    """One rank's bad call is refused on all ranks, naming it; no pool is
    written."""
    run_worker(2, case)
