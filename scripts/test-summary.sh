#!/usr/bin/env bash
# Prints how many lit tests and unit tests ran in the last `make check`.
set -euo pipefail
build=${1:-build}
unit=0
for bin in "$build"/bin/gdn-unittests "$build"/bin/gdn-layout-unittests; do
  [ -x "$bin" ] || continue
  unit=$((unit + $("$bin" --gtest_list_tests 2>/dev/null | grep -c '^  ' || true)))
done
# The lit tests of the tree; ctest runs some of them several times (the
# integration folder once per schedule), which the runs count.
lit=$(/usr/lib/llvm-22/bin/lit --show-tests "$build/test" 2>/dev/null | grep -c '::' || true)
runs=$(grep -Eo 'Total Discovered Tests: [0-9]+' "$build/Testing/Temporary/LastTest.log" 2>/dev/null | awk '{s += $4} END {print s + 0}' || true)
echo "== gdn test summary: ${unit:-0} unit tests (GoogleTest), ${lit:-0} lit tests (${runs:-0} lit runs under ctest) =="
