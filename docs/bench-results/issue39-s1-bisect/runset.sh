#!/bin/bash
# usage: runset.sh BIN TAG  -> prints per-set mean mbps, rto
BIN=$1; TAG=$2; mkdir -p /tmp/s1/o/$TAG
for d in L150-dynamic_wire L002-dynamic L002-dynamic_wire L150-default L150-fe L050-dynamic_wire L025-default; do
  for s in 01 02 03 04 05 06 07 08 09 10; do
    $BIN run -q --out /tmp/s1/o/$TAG/$d-s$s $d-s$s.toml 2>/tmp/s1/o/$TAG/$d-s$s.err || echo "FAIL $d-s$s $(head -c 300 /tmp/s1/o/$TAG/$d-s$s.err)"
  done
done
python3 - $TAG <<'PY'
import json,sys,glob,collections,os
tag=sys.argv[1];agg=collections.defaultdict(list)
for f in sorted(glob.glob(f'/tmp/s1/o/{tag}/*/summary.json')):
  d=os.path.basename(os.path.dirname(f)).rsplit('-s',1)[0];j=json.load(open(f))
  fl=j['flows'][0];agg[d].append((fl['bytes_delivered']*8/fl['completion_s']/1e6 if fl.get('completion_s') else 0, fl['timeouts'], fl['retransmitted_segments'], j['event_hash']))
for d,v in agg.items():
  print(tag,d,'mbps %.1f rto %.0f retx %.0f n %d h1 %s'%(sum(x[0] for x in v)/len(v),sum(x[1] for x in v)/len(v),sum(x[2] for x in v)/len(v),len(v),v[0][3]))
PY
