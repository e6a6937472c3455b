import sys, json
sys.path.insert(0, sys.argv[1])
from lfnlab import _native
toml = open(sys.argv[2]).read()
summary, flows = _native.run_bench(toml, "<gb>")
s = json.loads(summary)
print(sys.argv[1], s["conservation"], len(flows))
