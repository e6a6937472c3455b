import lfnlab, pandas as pd, numpy as np
from lfnlab.reproduce.ch01_gap_pacing import e2_bandwidth as e2
cs=[c for c in e2.cases(e2.FULL) if c.label==e2.run_label('scalable','off',256*1024)]
c=cs[0]; print(c.label)
sc=c.scenario
r=lfnlab.run(sc.with_sets({"sim.trace.bin":"10ms"}) if hasattr(sc,'with_sets') else sc)
t=r.tcp; print(t.columns.tolist()[:5], len(t))
t.to_parquet('/tmp/sc/tcp.parquet'); r.queues.to_parquet('/tmp/sc/queues.parquet') if hasattr(r,'queues') else None
print(r.summary['flows'][0]['retransmitted_segments'], r.summary['flows'][0]['timeouts'])
