#!/bin/bash
# Session 14: the landed compiler (1b7b6a8, with the split-seq
# initial-state copy) on the H200 for the first time. Matrix (memcheck +
# racecheck) on its auto set s14 and on split-seq alone (m14/split-seq);
# two interleaved rounds of events s13-cr (before the copy) / s14; s14
# beside FLA through the Python entry, H=16 HV=32 and H=2 HV=8.
set -u
source bench/runs/lib.sh
fla_install
matrix s14 $A/s14
matrix split-seq $A/m14/split-seq
for round in 1 2; do
  for shp in "pool 16 32 4096" "pool 16 32 16384" "pool 16 32 16384,16384" "pool 2 8 32768" "pool 2 8 65536" "paged 16 32 16384"; do
    shape_opts "$shp"; read -r i h hv t <<< "$shp"
    ev "r$round $i H$h ${t:0:12} s13-cr" $A/s13-cr
    ev "r$round $i H$h ${t:0:12} s14" $A/s14
  done
done
wait
bench_python s14 1x4096 8x4096 1x16384 2x16384
BP_OPTS="--heads 2 --value-heads 8" BP_TAG=-h2 bench_python s14 1x32768 1x65536
