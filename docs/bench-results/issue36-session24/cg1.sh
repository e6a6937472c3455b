#!/usr/bin/env bash
BIN=$1; TAG=$2; shift 2
cd /tmp/bench-s24
for sc in "$@"; do
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/tmp/bench-s24/cg-$TAG-$sc.out $BIN bench --scenario $sc > cg-$TAG-$sc.txt 2> cg-$TAG-$sc.err
  echo "$TAG $sc $(grep -o 'I *refs: *[0-9,]*' cg-$TAG-$sc.err)" >> cg.log
done
