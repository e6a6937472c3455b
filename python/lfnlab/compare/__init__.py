"""Side-by-side comparison of the simulator and real Linux TCP (issue 11, docs/compare.md).

| File | Job |
|---|---|
| ``runs.py`` | the testbed runs of a comparison (workers at a time) and each run's figures |
| ``cell.py`` | one scenario compared: its runs, rows and traces |
| ``summary.py`` | medians per side, the difference and the tolerance band |
| ``figures.py`` | goodput per run; cwnd and pacing-rate traces overlaid |
| ``report.py`` | ``report.md`` of a comparison |
| ``compare.py`` | ``lfnlab compare``: one cell, start to finish |
| ``command.py`` | the verb's arguments and exit status |
"""

from .compare import Comparison, compare

__all__ = ["Comparison", "compare"]
