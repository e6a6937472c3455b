"""Runs the fuzz targets for a fixed time each and reports (issue 12 §1).

    python fuzz/run.py [--seconds N] [--jobs J] [--json FILE] [TARGET ...]

Called by scripts/fuzz after the build. Each target runs with libFuzzer's
per-input timeout of 10 s and a 4 GiB memory limit, from a fresh working corpus
(fuzz/target/work/TARGET) seeded with the committed corpus (fuzz/corpus/TARGET)
and the inputs that once failed (fuzz/regressions/TARGET),
with its dictionary (fuzz/dict/). A crash (panic), a hang (an input over the
timeout) or an out-of-memory input leaves its input in fuzz/target/artifacts/TARGET/
and fails the run; reproduce one with `scripts/fuzz --repro TARGET FILE`.
Targets run side by side, `--jobs` at a time (default: every core).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "fuzz"
BIN = FUZZ / "target" / "x86_64-unknown-linux-gnu" / "release"
#: Target → its dictionary. The Rust targets are binaries of fuzz/Cargo.toml;
#: `sweep_plan` is the atheris target (the plan parser is Python).
TARGETS = {
    "scenario": "scenario.dict",
    "set_override": "scenario.dict",
    "units": "units.dict",
    "key_path": "key_path.dict",
    "sweep_plan": "sweep_plan.dict",
}
PER_INPUT_TIMEOUT_S = 10
RSS_LIMIT_MB = 4096


def command(target: str, python: str) -> list[str]:
    if target == "sweep_plan":
        return [python, str(FUZZ / "python" / "sweep_plan.py")]
    return [str(BIN / target)]


def run_one(target: str, seconds: int, python: str) -> dict[str, object]:
    work = FUZZ / "target" / "work" / target
    artifacts = FUZZ / "target" / "artifacts" / target
    for d in (work, artifacts):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    log = FUZZ / "target" / "logs" / f"{target}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    # Inputs that once failed (fuzz/regressions/TARGET) are seeds too, so every
    # run replays them first.
    regressions = FUZZ / "regressions" / target
    args = command(target, python) + [
        str(work),
        str(FUZZ / "corpus" / target),
        *([str(regressions)] if regressions.is_dir() else []),
        f"-max_total_time={seconds}",
        f"-timeout={PER_INPUT_TIMEOUT_S}",
        f"-rss_limit_mb={RSS_LIMIT_MB}",
        f"-dict={FUZZ / 'dict' / TARGETS[target]}",
        f"-artifact_prefix={artifacts}/",
        "-print_final_stats=1",
    ]
    start = time.monotonic()
    with open(log, "wb") as out:
        try:
            code = subprocess.run(args, stdout=out, stderr=subprocess.STDOUT, timeout=seconds + 300).returncode
        except subprocess.TimeoutExpired:
            code = -1  # libFuzzer itself stopped answering: a hang
    text = log.read_text(encoding="utf-8", errors="replace")
    stats = {k: int(v) for k, v in re.findall(r"^stat::(\w+):\s+(\d+)", text, re.M)}
    found = sorted(p.name for p in artifacts.iterdir())
    kinds = {"crash": 0, "timeout": 0, "oom": 0, "leak": 0}
    for name in found:
        kind = name.split("-", 1)[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return {
        "target": target,
        "seconds": seconds,
        "wall_s": round(time.monotonic() - start, 1),
        "exit_code": code,
        "runs": stats.get("number_of_executed_units", 0),
        "exec_per_s": stats.get("average_exec_per_sec", 0),
        "new_inputs": stats.get("new_units_added", 0),
        "peak_rss_mb": stats.get("peak_rss_mb", 0),
        "crashes": kinds["crash"],
        "hangs": kinds["timeout"] + (1 if code == -1 else 0),
        "ooms": kinds["oom"],
        "artifacts": [str(artifacts / n) for n in found],
        "log": str(log),
        "ok": code == 0 and not found,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="*", choices=[*TARGETS, []], metavar="TARGET", help=f"default: all of {', '.join(TARGETS)}")
    ap.add_argument("--seconds", type=int, default=60, help="per target (default 60)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", type=Path, default=FUZZ / "target" / "fuzz-report.json")
    ap.add_argument("--python", default=sys.executable, help="the interpreter with lfnlab and atheris")
    a = ap.parse_args()
    if a.seconds < 1 or a.jobs < 1:
        ap.error("--seconds and --jobs must be at least 1")
    targets = a.targets or list(TARGETS)
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda t: run_one(t, a.seconds, a.python), targets))
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps({"per_input_timeout_s": PER_INPUT_TIMEOUT_S, "rss_limit_mb": RSS_LIMIT_MB, "targets": results}, indent=2) + "\n", encoding="utf-8")
    print(f"{'target':14} {'seconds':>7} {'runs':>11} {'exec/s':>8} {'new':>6} {'crashes':>7} {'hangs':>5} {'ooms':>4}")
    for r in results:
        print(f"{r['target']:14} {r['seconds']:>7} {r['runs']:>11} {r['exec_per_s']:>8} {r['new_inputs']:>6} {r['crashes']:>7} {r['hangs']:>5} {r['ooms']:>4}")
    bad = [r for r in results if not r["ok"]]
    for r in bad:
        print(f"FAILED {r['target']}: exit {r['exit_code']}, artifacts {r['artifacts']}; log {r['log']}", file=sys.stderr)
    print(f"report: {a.json}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
