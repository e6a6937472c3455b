#!/usr/bin/env bash
# cg.sh BIN TAG SCENARIO... : instruction counts (valgrind cachegrind, --cache-sim=no) of lfnlab bench
BIN=$1; TAG=$2; shift 2
cd ${OUT:-/tmp/bench-s25}
for sc in "$@"; do
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=${OUT:-/tmp/bench-s25}/cg-$TAG-$sc.out $BIN bench --scenario $sc > cg-$TAG-$sc.txt 2> cg-$TAG-$sc.err
  echo "$TAG $sc $(grep -o 'I *refs: *[0-9,]*' cg-$TAG-$sc.err)" >> cg.log
done
