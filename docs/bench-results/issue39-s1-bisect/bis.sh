#!/bin/bash
for c in "$@"; do
  if [ ! -x /tmp/s1/bin-$c ]; then
    (cd /tmp/s1/wt && git checkout -q -f $c && CARGO_TARGET_DIR=/tmp/s1/tgt cargo build -q --release -p lfnlab-cli >/tmp/s1/build-$c.log 2>&1 && cp /tmp/s1/tgt/release/lfnlab /tmp/s1/bin-$c) || { echo "BUILD FAIL $c"; continue; }
  fi
  (cd /tmp/s1/sc && ./runset.sh /tmp/s1/bin-$c $c)
done
