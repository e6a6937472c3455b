"""The user guide under docs/ (issue 10): the generated pages match the code, and
every relative link of every page leads to a file."""

from __future__ import annotations

import re
from pathlib import Path

from lfnlab.reproduce.pages import pages
from lfnlab.reproduce.registry import catalogue
from support import ROOT

DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)]*)?\)")


def test_experiment_pages_are_generated_from_the_catalogue() -> None:
    wanted = pages()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in (DOCS / "experiments").glob("*.md")}
    stale = sorted(n for n in wanted.keys() | on_disk.keys() if wanted.get(n) != on_disk.get(n))
    assert not stale, f"regenerate with `python -m lfnlab.reproduce.pages docs/experiments`: {stale}"
    assert {f"{e.id}.md" for e in catalogue()} < wanted.keys(), "a page per experiment"


def test_relative_links_resolve() -> None:
    broken = []
    for md in [ROOT / "README.md", *DOCS.rglob("*.md")]:
        for target, _ in LINK.findall(md.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (md.parent / target).exists():
                broken.append(f"{md.relative_to(ROOT)} -> {target}")
    assert not broken, broken
