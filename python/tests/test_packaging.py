"""How the package finds its library, kernel file and artifacts, in the repo
and installed from the wheel (setup.py; scripts/check-wheel.sh runs this
file against a fresh virtual environment with GDN_TESTS_USE_INSTALLED=1)."""

import os
import pathlib

import pytest

import gdn
from gdn import _capi, _kernel

INSTALLED = os.environ.get("GDN_TESTS_USE_INSTALLED") == "1"
REPO = pathlib.Path(__file__).resolve().parents[2]


def test_an_unloadable_library_is_skipped_and_named(tmp_path):
    # A wheel's MLIR library does not load where LLVM 22 is missing; the
    # runtime-only library after it must then be the one loaded.
    broken = tmp_path / "libgdn.so"
    broken.write_bytes(b"not an ELF file")
    missing = tmp_path / "libgdn-runtime.so"
    lib, path = _capi._load([missing, broken, _capi.LIBRARY])
    assert path == _capi.LIBRARY and lib.gdn_api_version() == _capi.API_VERSION
    with pytest.raises(ImportError) as refused:
        _capi._load([missing, broken])
    message = str(refused.value)
    assert str(missing) + " (missing)" in message
    assert str(broken) + " (" in message and "GDN_LIBRARY" in message


@pytest.mark.skipif(not INSTALLED, reason="checks an installed wheel")
def test_installed_package_is_self_contained():
    package = pathlib.Path(gdn.__file__).resolve().parent
    assert REPO / "python" not in package.parents and package != REPO / "python" / "gdn"
    assert "GDN_LIBRARY" not in os.environ and "GDN_ARTIFACTS" not in os.environ
    # The library, the kernel file and the defaults come from the package:
    # the MLIR library where LLVM 22 is, else the runtime-only one.
    assert _capi.LIBRARY == package / "lib" / (
        "libgdn.so" if _capi.lib.gdn_can_compile() else "libgdn-runtime.so")
    assert _kernel._bundled("kernels/gdn_chunked.mlir") == \
        package / "kernels" / "gdn_chunked.mlir"
    assert (package / "kernels" / "gdn_chunked.mlir").read_bytes() == \
        (REPO / "kernels" / "gdn_chunked.mlir").read_bytes()


@pytest.mark.skipif(INSTALLED, reason="checks the repo's layout")
def test_repo_package_finds_nothing_bundled():
    # In the repo the library's own defaults (its kernels/ path) serve.
    assert _kernel._bundled("kernels/gdn_chunked.mlir") is None
    assert _kernel._bundled("artifacts") is None
