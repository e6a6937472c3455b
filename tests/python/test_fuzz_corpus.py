"""The committed fuzz seed corpus and dictionaries (fuzz/, docs/fuzzing.md) are what
fuzz/make_corpus.py makes from today's examples, catalogue and schema."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import ROOT


def _files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_the_seed_corpus_is_current(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "fuzz" / "make_corpus.py"), str(tmp_path)], check=True, capture_output=True)
    for part in ("corpus", "dict"):
        made, kept = _files(tmp_path / part), _files(ROOT / "fuzz" / part)
        assert made.keys() == kept.keys(), f"fuzz/{part} is stale: run scripts/fuzz --corpus"
        assert made == kept, f"fuzz/{part} is stale: run scripts/fuzz --corpus"
    # The corpus covers every target and the catalogue, not only the examples.
    assert {p.name for p in (ROOT / "fuzz" / "corpus").iterdir()} == {"scenario", "set_override", "units", "key_path", "sweep_plan"}
    assert len(list((ROOT / "fuzz" / "corpus" / "scenario").iterdir())) > 50
