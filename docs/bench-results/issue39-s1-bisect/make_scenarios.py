import re,sys,pathlib
keep_tcp={'iw','ack_policy','rto_min','sack','timestamps','send_stall_policy'}
src=pathlib.Path('/tmp/s1/head/runs')
for d in ['L150-dynamic_wire','L002-dynamic','L002-dynamic_wire','L150-default','L150-fe','L050-dynamic_wire','L025-default']:
  for s in range(1,11):
    t=(src/f'{d}-s{s:02d}'/'scenario.toml').read_text().splitlines()
    out=[];sec=None
    for line in t:
      m=re.match(r'^\[+([^\]]+)\]+',line)
      if m: sec=m.group(1)
      elif sec=='flow.tcp' and '=' in line and line.split('=')[0].strip() not in keep_tcp: continue
      elif sec=='sim.trace': pass
      if line.startswith('ip_ttl'): continue
      out.append(line)
    pathlib.Path(f'{d}-s{s:02d}.toml').write_text('\n'.join(out)+'\n')
