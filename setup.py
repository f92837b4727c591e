"""Builds the `gdn` wheel: the Python package in python/gdn with its library.

The package is pure Python plus libraries loaded with ctypes, so the wheel is
tagged py3-none-<platform>: one wheel serves every CPython 3. What goes in
(docs/Python.md, "Installing"):

- gdn/lib/libgdn.so: the library built with MLIR (host tensors on the CPU
  back end, kernels compiled on first use), from $GDN_BUILD_DIR (default
  build/, built with `make build` first when missing);
- gdn/lib/libgdn-runtime.so: the MLIR-free library (`make runtime`,
  $GDN_RUNTIME_BUILD_DIR, default build-rt/), when it was built: GPU hosts
  without LLVM load it when the first cannot be loaded;
- gdn/kernels/: the kernel file the first compiles;
- gdn/artifacts/: the PTX artifact sets of $GDN_ARTIFACTS_DIR (default
  artifacts/, `make artifacts`), when they exist: the runtime library runs
  them with no environment variable.

`make wheel` builds all three and the wheel.
"""

import os
import pathlib
import shutil
import subprocess
import sysconfig

from setuptools import setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 has it; older ones take it from `wheel`.
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover
    from wheel.bdist_wheel import bdist_wheel

ROOT = pathlib.Path(__file__).resolve().parent


def _dir(variable, default):
    path = pathlib.Path(os.environ.get(variable, default))
    return path if path.is_absolute() else ROOT / path


def _refresh(build_dir):
    """Brings a configured build's library up to date (a no-op when it is)."""
    if (build_dir / "build.ninja").is_file():
        subprocess.check_call(["ninja", "-C", str(build_dir), "gdn"])


class BuildWithLibraries(build_py):
    """build_py, then the libraries, the kernel file and the artifacts."""

    def run(self):
        super().run()
        package = pathlib.Path(self.build_lib) / "gdn"
        full, runtime = _dir("GDN_BUILD_DIR", "build"), _dir(
            "GDN_RUNTIME_BUILD_DIR", "build-rt")
        _refresh(full)
        _refresh(runtime)
        built = [(full / "lib" / "libgdn.so", "libgdn.so"),
                 (runtime / "lib" / "libgdn.so", "libgdn-runtime.so")]
        if not any(source.is_file() for source, _ in built):
            # A fresh checkout: the README's build (installs what is missing).
            subprocess.check_call(["make", "-C", str(ROOT), "build",
                                   "BUILD=" + str(full)])
        (package / "lib").mkdir(parents=True, exist_ok=True)
        for source, name in built:
            if source.is_file():
                shutil.copy2(source, package / "lib" / name)
        (package / "kernels").mkdir(exist_ok=True)
        shutil.copy2(ROOT / "kernels" / "gdn_chunked.mlir",
                     package / "kernels" / "gdn_chunked.mlir")
        artifacts = _dir("GDN_ARTIFACTS_DIR", "artifacts")
        if artifacts.is_dir():
            shutil.copytree(artifacts, package / "artifacts",
                            dirs_exist_ok=True)


class PlatformWheel(bdist_wheel):
    """py3-none-<platform>: the libraries are native, the Python is not."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")


# Setuptools' own build files stay out of the CMake build's build/lib.
STAGING = ROOT / "build-wheel"
STAGING.mkdir(exist_ok=True)
setup(cmdclass={"build_py": BuildWithLibraries, "bdist_wheel": PlatformWheel},
      options={"build": {"build_base": str(STAGING)},
               "egg_info": {"egg_base": str(STAGING)}})
