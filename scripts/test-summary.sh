#!/usr/bin/env bash
# Prints how many lit tests and unit tests ran in the last `make check`.
set -euo pipefail
build=${1:-build}
unit=0
for bin in "$build"/bin/gdn-unittests "$build"/bin/gdn-layout-unittests; do
  [ -x "$bin" ] || continue
  unit=$((unit + $("$bin" --gtest_list_tests 2>/dev/null | grep -c '^  ' || true)))
done
lit=$(grep -Eo 'Total Discovered Tests: [0-9]+' "$build/Testing/Temporary/LastTest.log" 2>/dev/null | tail -1 | grep -Eo '[0-9]+$' || true)
if [ -z "$lit" ]; then
  lit=$(/usr/lib/llvm-22/bin/lit --show-tests "$build/test" 2>/dev/null | grep -c '::' || true)
fi
echo "== gdn test summary: ${unit:-0} unit tests (GoogleTest), ${lit:-0} lit tests =="
