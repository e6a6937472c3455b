import json, statistics, sys, glob, os
d = sys.argv[1]
scs = ['1g-200ms-16MiB-cubic', '10g-500ms-16MiB-cubic-fq', '50flows-1g-100ms', 'e52-1000-1000-voq']
print('| Scenario | ns/data packet, 843ecbc (median of 5) | new | new/old of medians | median of pair ratios | old runs | new runs |')
print('|---|---|---|---|---|---|---|')
for sc in scs:
    o, n = [], []
    for i in range(1, 6):
        f = lambda who: json.load(open(f'{d}/{who}-{sc}-{i}.json'))['benchmarks'][0]['ns_per_data_packet']
        try:
            o.append(f('old')); n.append(f('new'))
        except FileNotFoundError:
            pass
    if not o: continue
    mo, mn = statistics.median(o), statistics.median(n)
    pr = statistics.median([b / a for a, b in zip(o, n)])
    print(f'| {sc} | {mo:.1f} | {mn:.1f} | {mn/mo:.3f} | {pr:.3f} | {min(o):.0f}–{max(o):.0f} | {min(n):.0f}–{max(n):.0f} |')
