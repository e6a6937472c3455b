"""The golden test of behaviour-preserving changes (issues 36 and 37).

Runs every example scenario in ``examples/`` (``lfnlab run``; a sweep plan with
``lfnlab sweep``) and every ``--quick`` reproduction of the catalogue (``lfnlab
reproduce ID --quick``; the testbed's ``real.*`` ones aside, they need root and drive
the real kernel), and records, per run and per reproduction:

- each simulator run's event hash (spec 06 §7 V6) and the SHA-256 of every file of its
  result directory (``summary.json`` without its ``wall_seconds``, a sweep run's
  ``sweep.json`` without its wall time, host and finishing time: the fields that follow
  the wall clock or the machine);
- each reproduction's tables (SHA-256 of each CSV), its checks (name, measured value,
  verdict), its figure list (and each PNG's SHA-256, which follows matplotlib's version),
  and the SHA-256 of its ``report.md``.

``python scripts/golden.py record`` writes ``tests/golden/digests.json``; ``python
scripts/golden.py check`` runs everything again and lists every difference (exit 1 if
any). A refactor must leave every digest unchanged; a commit that changes behaviour
says so and records the new digests in the same commit.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "digests.json"
#: Files whose bytes follow the wall clock or the engine binary, not the run:
#: the resume stamp of a reproduction's run holds the engine module's SHA-256.
SKIP = {"reproduce.json"}


def lfnlab() -> list[str]:
    """The command under test: LFNLAB_GOLDEN_CMD (for example another build's
    ``python -m lfnlab.cli``), else the project's .venv."""
    if os.environ.get("LFNLAB_GOLDEN_CMD"):
        return os.environ["LFNLAB_GOLDEN_CMD"].split()
    exe = ROOT / ".venv" / "bin" / "lfnlab"
    if not exe.exists():
        sys.exit(f"golden: {exe} is missing: run scripts/bootstrap --build-only first")
    return [str(exe)]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: Per JSON file, the fields that follow the wall clock or the machine.
WALL_FIELDS = {"summary.json": ("wall_seconds",), "sweep.json": ("wall_seconds", "host", "finished_utc")}


def file_digest(path: Path) -> str:
    if path.name in WALL_FIELDS:
        doc = json.loads(path.read_text(encoding="utf-8"))
        for k in WALL_FIELDS[path.name]:
            doc.pop(k, None)
        return sha256(json.dumps(doc, sort_keys=True).encode("utf-8"))
    return sha256(path.read_bytes())


def result_dir_digest(d: Path) -> dict[str, Any]:
    """A simulator result directory: its event hash and every file's digest."""
    summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    files = {p.name: file_digest(p) for p in sorted(d.iterdir()) if p.is_file() and p.name not in SKIP}
    return {"event_hash": summary.get("event_hash"), "files": files}


def runs_under(d: Path) -> dict[str, Any]:
    """Every result directory below ``d`` (those holding a summary.json), by relative path."""
    return {str(s.parent.relative_to(d)): result_dir_digest(s.parent) for s in sorted(d.rglob("summary.json"))}


def run(cmd: list[str], what: str) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    # A reproduction whose check fails exits 1 and still wrote its output: that is a
    # result like any other, recorded as its verdicts.
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{what}: exit {p.returncode}: {p.stderr.strip()[-2000:]}")


def example(path: Path, work: Path) -> dict[str, Any]:
    out = work / "ex" / path.stem
    text = path.read_text(encoding="utf-8")
    if "[sweep]" in text:
        run(lfnlab() + ["sweep", str(path), "--out", str(out), "--workers", "1", "--progress", "none"], path.name)
        return {"runs": runs_under(out)}
    run(lfnlab() + ["run", str(path), "--out", str(out), "--quiet", "--progress", "none"], path.name)
    return result_dir_digest(out)


def reproduction(experiment_id: str, work: Path) -> dict[str, Any]:
    out = work / "rep" / experiment_id
    run(lfnlab() + ["reproduce", experiment_id, "--quick", "--workers", "1", "--out", str(out)], experiment_id)
    checks = json.loads((out / "checks.json").read_text(encoding="utf-8"))
    return {
        "tables": {p.name: sha256(p.read_bytes()) for p in sorted(out.glob("*.csv"))},
        "checks": [[c.get("name"), c.get("measured"), c.get("passed")] for c in checks.get("checks", [])],
        "figures": {p.name: sha256(p.read_bytes()) for p in sorted(out.glob("*.png"))},
        # The report names the command that made it, with this run's --out directory.
        "report_md": sha256((out / "report.md").read_text(encoding="utf-8").replace(str(work), "WORK").encode("utf-8")),
        "runs": runs_under(out / "runs") if (out / "runs").is_dir() else {},
    }


def catalogue() -> list[str]:
    p = subprocess.run(lfnlab() + ["reproduce", "--list"], capture_output=True, text=True, check=True)
    ids = [line.split()[0] for line in p.stdout.splitlines() if line.strip() and not line.startswith(" ")]
    return [i for i in ids if not i.startswith("real.")]


def collect(workers: int, only: list[str]) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="lfnlab-golden-"))
    try:
        examples = sorted(ROOT.glob("examples/*.toml"))
        jobs: dict[str, Any] = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            for e in examples:
                key = f"example:{e.name}"
                if not only or key in only:
                    jobs[key] = pool.submit(example, e, work)
            for i in catalogue() if not only or any(k.startswith("reproduce:") for k in only) else []:
                key = f"reproduce:{i}"
                if not only or key in only:
                    jobs[key] = pool.submit(reproduction, i, work)
            t0 = time.monotonic()
            out: dict[str, Any] = {}
            for key, fut in jobs.items():
                out[key] = fut.result()
                print(f"golden: {key} done ({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def differences(old: Any, new: Any, path: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        diffs = []
        for k in sorted(set(old) | set(new)):
            if k not in old:
                diffs.append(f"{path}/{k}: new")
            elif k not in new:
                diffs.append(f"{path}/{k}: missing")
            else:
                diffs += differences(old[k], new[k], f"{path}/{k}")
        return diffs
    return [] if old == new else [f"{path}: {json.dumps(old)[:120]} -> {json.dumps(new)[:120]}"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=["record", "check"])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", action="append", default=[], help="a key such as reproduce:06.V1 or example:dumbbell.toml")
    ap.add_argument("--examples", action="store_true", help="only the examples (seconds; the test suite checks these)")
    ap.add_argument("--ignore-figures", action="store_true", help="check: leave the PNG digests out (another matplotlib)")
    a = ap.parse_args()
    if a.examples:
        a.only += [f"example:{e.name}" for e in sorted(ROOT.glob("examples/*.toml"))]
    new = collect(a.workers, a.only)
    if a.action == "record":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        if a.only and GOLDEN.exists():
            merged = json.loads(GOLDEN.read_text(encoding="utf-8"))
            merged.update(new)
            new = merged
        GOLDEN.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"golden: recorded {len(new)} entries in {GOLDEN.relative_to(ROOT)}")
        return 0
    old = json.loads(GOLDEN.read_text(encoding="utf-8"))
    if a.only:
        old = {k: v for k, v in old.items() if k in a.only}
    diffs = differences(old, new)
    if a.ignore_figures:
        diffs = [d for d in diffs if "/figures/" not in d]
    for d in diffs:
        print(d)
    print(f"golden: {len(new)} entries, {len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
