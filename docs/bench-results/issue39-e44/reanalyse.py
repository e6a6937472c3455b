"""Re-analyse a finished 04.E4.4 output directory with the current analysis code (issue 39
item 7). `lfnlab reproduce --resume` reuses runs only with the same engine build; this reads
each run directory as it is. Usage: .venv/bin/python reanalyse.py OUT"""

import pathlib
import sys

from lfnlab.reproduce.registry import find
from lfnlab.result import load_result

experiment = find("04.E4.4")
params = experiment.params(False)
runs = pathlib.Path(sys.argv[1]) / "runs"
kept = {}
for case in experiment.cases(params):
    result = load_result(runs / case.label)
    kept[case.label] = case.keep(result) if case.keep else result
outcome = experiment.analyse(params, kept)
for check in outcome.checks:
    print("PASS" if check.passed else "FAIL", check.name, check.measured_text(), check.criterion)
print(f"{sum(c.passed for c in outcome.checks)} of {len(outcome.checks)} checks pass")
for note in outcome.notes:
    if "leave out" in note:
        print(note)
