"""Makes the package in python/ importable without installing it; with
GDN_TESTS_USE_INSTALLED=1 the tests run against the installed package
instead (the wheel's check, scripts/check-wheel.sh)."""

import os
import sys

if os.environ.get("GDN_TESTS_USE_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
