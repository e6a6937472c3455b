#!/usr/bin/env bash
# Interleaved old/new pairs: per scenario, 5 pairs, the order alternating.
# OLD, NEW: the two lfnlab binaries; OUT: where the bench JSON files go.
# wall-e1e97f7/ was made with NEW=.../lfnlab-e1e97f7, wall-517e69b/ with NEW=.../lfnlab-517e69b.
set -u
OLD=${OLD:-/tmp/base-target/release/lfnlab}
NEW=${NEW:-/tmp/bench-s24/lfnlab-517e69b}
OUT=${OUT:-/tmp/bench-s24/wall2}
mkdir -p "$OUT"
for i in 1 2 3 4 5; do
  for sc in 1g-200ms-16MiB-cubic 10g-500ms-16MiB-cubic-fq 50flows-1g-100ms e52-1000-1000-voq; do
    if [ $((i % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
    for who in $order; do
      bin=$OLD; [ "$who" = new ] && bin=$NEW
      "$bin" bench --scenario $sc --json "$OUT/$who-$sc-$i.json" > "$OUT/$who-$sc-$i.txt" 2>&1
    done
  done
done
