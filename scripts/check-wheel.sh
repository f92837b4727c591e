#!/usr/bin/env bash
# `pip install` of the source tree into a fresh virtual environment, then the
# README's examples and the packaging checks from another directory, with no
# GDN_* variable and no PYTHONPATH: what a new user does (issue: pip install).
#   scripts/check-wheel.sh PYTHON SOURCE_DIR BUILD_DIR
# The venv sees Debian's numpy and pytest (--system-site-packages); the
# package's library comes from BUILD_DIR (setup.py's GDN_BUILD_DIR), built
# already by `make check`.
set -euo pipefail
python=$1 source=$2 build=$3
venv=$build/wheel-venv
rm -rf "$venv"
"$python" -m venv --system-site-packages "$venv"
GDN_BUILD_DIR=$build "$venv/bin/python" -m pip install --quiet \
  --disable-pip-version-check --no-cache-dir "$source"
# From another directory: nothing of the source tree is importable (pytest
# puts only python/tests on the path; conftest.py leaves python/ off).
elsewhere=$(mktemp -d)
trap 'rm -rf "$elsewhere"' EXIT
cd "$elsewhere"
env -u GDN_LIBRARY -u GDN_ARTIFACTS -u GDN_SCHEDULE -u PYTHONPATH \
  GDN_TESTS_USE_INSTALLED=1 PYTHONDONTWRITEBYTECODE=1 \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$source/python/tests/test_readme.py" "$source/python/tests/test_packaging.py"
