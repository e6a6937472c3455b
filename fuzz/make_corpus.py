"""Writes the fuzz seed corpus (fuzz/corpus/TARGET/) from the examples and the
scenarios of the reproduction catalogue (issue 12 §1).

    .venv/bin/python fuzz/make_corpus.py [OUT]    # default OUT: fuzz/ (corpus/, dict/)

Each catalogued experiment's quick form gives its first ``PER_EXPERIMENT``
declared cases (``Experiment.cases``, reproduce/engine.py), so the corpus follows
the catalogue without running it. File names are content hashes: re-running the script changes nothing unless
the examples or the catalogue changed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
DICT = ROOT / "fuzz" / "dict"
#: The examples in the order of `EXAMPLES` in fuzz_targets/set_override.rs.
SET_EXAMPLES = ["dumbbell", "cps", "gap_pacing", "quickstart", "t4p", "tcp_nic", "web"]
PER_EXPERIMENT = 3
#: Quantities as users type them, for the unit parsers.
QUANTITIES = [
    "1Gbps", "9.953Gbps", "100Mbps", "62.5MB/s", "1.25GB/s", "0bps", "10kbps", "1Tbps",
    "128KiB", "16MiB", "1500B", "9000B", "1GiB", "64kB", "1.5MB",
    "200ms", "0.5s", "10us", "100ns", "1h", "0s", "1e-3s", "2.5ms",
]


def _write(target: str, data: bytes, suffix: str = "") -> None:
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / (hashlib.sha256(data).hexdigest()[:16] + suffix)).write_bytes(data)


def _leaves(doc: Any, prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else []
    for k, v in items:
        here = f"{prefix}[{k}]" if isinstance(k, int) else (f"{prefix}.{k}" if prefix else k)
        out += _leaves(v, here) if isinstance(v, (dict, list)) else [(here, v)]
    return out


def _schema_words() -> list[str]:
    """Every key, enum value and constant of the scenario schema (docs/reference)."""
    schema = json.loads((ROOT / "docs" / "reference" / "scenario.schema.json").read_text(encoding="utf-8"))
    words: set[str] = set()

    def walk(o: Any) -> None:
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "properties" and isinstance(v, dict):
                    words.update(v)
                elif k == "enum" and isinstance(v, list):
                    words.update(x for x in v if isinstance(x, str))
                elif k == "const" and isinstance(v, str):
                    words.add(v)
                walk(v)
        elif isinstance(o, list):
            for x in o:
                walk(x)

    walk(schema)
    return sorted(words)


def _dict_char(byte: int) -> str:
    r"""One byte in libFuzzer's dictionary syntax: printable ASCII, \\, \" or \xNN."""
    c = chr(byte)
    if c in '\\"':
        return "\\" + c
    return c if 32 <= byte < 127 else f"\\x{byte:02X}"


def _dictionaries() -> None:
    """libFuzzer dictionaries (fuzz/dict/): the schema's words and TOML tokens, so
    that mutations make keys and values the loader knows."""
    units = ["bps", "kbps", "Mbps", "Gbps", "Tbps", "B/s", "MB/s", "GB/s", "B", "KiB", "MiB", "GiB", "kB", "MB",
             "ns", "us", "ms", "s", "h"]
    toml = ["[[node]]", "[[link]]", "[[flow]]", "[sim]", "[[monitor]]", "[[capture]]", " = ", "\"", "[", "]", "{", "}", ".", "\n"]
    plan = ["[sweep]", "[sweep.set]", "[[axis]]", "[base]", "[base.sim]", "[[base.node]]", "scenario", "repetitions", "seed",
            "values", "range", "start", "stop", "step", "unit", "key", "name"]
    words = _schema_words()

    def write(name: str, tokens: list[str]) -> None:
        DICT.mkdir(parents=True, exist_ok=True)
        lines = ['"' + "".join(_dict_char(c) for c in t.encode()) + '"' for t in dict.fromkeys(tokens)]
        (DICT / name).write_text("\n".join(lines) + "\n", encoding="utf-8")

    write("scenario.dict", words + units + toml)
    write("sweep_plan.dict", plan + words + units + toml)
    write("key_path.dict", words + ["[", "]", ".", "[0]", "[1]"])
    write("units.dict", units + ["e", "e-", ".", "-", "+"])


def main() -> int:
    global CORPUS, DICT
    if len(sys.argv) > 1:
        CORPUS, DICT = Path(sys.argv[1]) / "corpus", Path(sys.argv[1]) / "dict"
    import lfnlab
    from lfnlab.reproduce.engine import BenchCase
    from lfnlab.reproduce.registry import catalogue
    from lfnlab.toml_text import dumps, value_text

    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    examples = sorted(p for p in (ROOT / "examples").glob("*.toml"))
    plans = [p for p in examples if b"[sweep]" in p.read_bytes()]
    scenarios = [p for p in examples if p not in plans]

    for p in scenarios:
        _write("scenario", p.read_bytes(), ".toml")
    # The first cases each experiment declares for its quick form (reproduce/engine.py).
    for exp in catalogue():
        for case in list(exp.cases(exp.params(True)))[:PER_EXPERIMENT]:
            scenario = case.build() if isinstance(case, BenchCase) else case.scenario
            _write("scenario", scenario.to_toml().encode(), ".toml")

    for p in plans:
        _write("sweep_plan", p.read_bytes(), ".toml")
    # An inline base and a range axis (docs/sweep.md), for the sweep-plan target.
    dumbbell = tomllib.loads((ROOT / "examples" / "dumbbell.toml").read_text(encoding="utf-8"))
    inline = {
        "sweep": {"name": "inline", "repetitions": 2, "seed": 7, "set": {"sim.duration": "1s"}},
        "base": dumbbell,
        "axis": [{"key": "link[1].rate", "range": {"start": 100, "stop": 500, "step": 100, "unit": "Mbps"}},
                 {"key": "sim.seed", "range": {"start": 1, "stop": 3, "step": 1}}],
    }
    _write("sweep_plan", dumps(inline).encode(), ".toml")

    for i, stem in enumerate(SET_EXAMPLES):
        resolved = lfnlab.Scenario.from_file(ROOT / "examples" / f"{stem}.toml").to_toml()
        leaves = _leaves(tomllib.loads(resolved))
        step = max(1, len(leaves) // 8)
        for key, value in leaves[::step]:
            _write("set_override", bytes([i]) + f"{key}={value_text(value)}".encode())
            _write("key_path", key.encode())
    for q in QUANTITIES:
        _write("units", q.encode())

    _dictionaries()

    for target in sorted(p.name for p in CORPUS.iterdir()):
        print(f"{target}: {len(list((CORPUS / target).iterdir()))} inputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
