import sys, lfnlab
from lfnlab.reproduce.ch01_gap_pacing import e2_bandwidth as e2
for b in (128,256,512):
  c=[c for c in e2.cases(e2.FULL) if c.label==e2.run_label('scalable','off',b*1024)][0]
  for sets in ({}, {"flow[0].tcp.recovery_cwnd":"prr"}):
    sc=c.scenario
    for k,v in sets.items(): sc=sc.with_set(f"{k}={v}")
    r=lfnlab.run(sc)
    f=r.summary['flows'][0]; q=[x for x in r.summary['queues'] if x['dropped']]
    print(b, sets, 'goodput %.2f MB/s'%(f['goodput_bps']/8e6), 'retx', f['retransmitted_segments'], 'drops', [(x['name'],x['dropped']) for x in q], flush=True)
