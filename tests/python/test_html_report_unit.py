"""``lfnlab report`` and :mod:`lfnlab.html` without a browser: determinism, escaping,
completeness when report.md leaves things out, metrics of a sweep, and the errors."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from html_support import make_reproduction, make_sweep_store, read_dom
from lfnlab.errors import InvalidInputError
from lfnlab.html import render_report, write_report
from support import ROOT, run_cli


def _same_bytes_twice_and_elsewhere(d: Path, tmp_path: Path) -> bytes:
    first = write_report(d).read_bytes()
    again = write_report(d).read_bytes()
    assert first == again
    copy = tmp_path / "elsewhere" / d.name  # another place, the same name
    shutil.copytree(d, copy)
    (copy / "report.html").unlink()
    assert write_report(copy).read_bytes() == first, "nothing depends on where DIR is"
    return first


def test_reproduction_page_is_deterministic(tmp_path: Path) -> None:
    d = make_reproduction(tmp_path / "repro")
    page = _same_bytes_twice_and_elsewhere(d, tmp_path)
    assert str(tmp_path).encode() not in page


def test_sweep_page_is_deterministic(tmp_path: Path) -> None:
    d = make_sweep_store(tmp_path / "sweep")
    _same_bytes_twice_and_elsewhere(d, tmp_path)


@pytest.mark.engine
def test_run_page_is_deterministic(tmp_path: Path) -> None:
    d = tmp_path / "run"
    p = run_cli("run", ROOT / "examples" / "dumbbell.toml", "--set", "sim.duration=1s", "--out", d)
    assert p.returncode == 0, p.stderr
    _same_bytes_twice_and_elsewhere(d, tmp_path)


HOSTILE = '<script>alert("x")</script> & "quotes" <b>'


def test_text_from_the_directory_is_escaped(tmp_path: Path) -> None:
    extra = (
        "Raw markup <script>alert(1)</script> and <div onclick=\"x()\">a block</div>.\n\n"
        "![far](http://example.invalid/far.png) ![none](nothere.png) ![up](../f1.png) "
        "[bad](javascript:alert(1)) [ok](https://example.org/) [csv](t1.csv)\n"
    )
    # report.md leaves out t2.csv: its cells come straight from the CSV.
    d = make_reproduction(tmp_path / "repro", title=HOSTILE, extra_md=extra, omit=True)
    text = write_report(d).read_text(encoding="utf-8")
    assert "<script" not in text.lower() and "<b>" not in text and "<div onclick" not in text
    assert "javascript:" not in text
    dom = read_dom(text)
    assert dom.title == f"99.X1: {HOSTILE}", "escaped, and shown as written"
    assert dom.scripts == 0
    assert "&lt;b&gt;bold&lt;/b&gt;" in text  # a CSV cell
    assert "ratio &lt;a&gt;" in text and "drops &amp; losses" in text  # check names from checks.json
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # raw HTML in report.md
    for tag, attr, value in dom.urls:
        assert value.startswith("data:image/png;base64,"), (tag, attr, value[:60])
    # An image that is not a PNG of the directory is a note, never a reference.
    for alt in ("far", "none", "up"):
        assert f'<span class="missing">[figure {alt} is not in this directory]</span>' in text
    assert 'href="https://example.org/"' in text and 'href="t1.csv"' in text


def test_sweep_values_are_escaped(tmp_path: Path) -> None:
    d = make_sweep_store(tmp_path / "sweep", axis_value="<i>cubic</i> & co")
    text = write_report(d).read_text(encoding="utf-8")
    assert "<i>" not in text and "&lt;i&gt;cubic&lt;/i&gt; &amp; co" in text
    assert "simulation error: &lt;limit&gt; &amp; co" in text  # the failed run's error
    assert len(read_dom(text).images) == 4


def test_every_table_and_figure_appears_even_when_report_md_omits_them(tmp_path: Path) -> None:
    d = make_reproduction(tmp_path / "repro", omit=True)
    dom = read_dom(write_report(d).read_text(encoding="utf-8"))
    headers = [t[0] for t in dom.tables]
    assert ["x", "y"] in headers and ["name", "a,b"] in headers
    assert len(dom.images) == 2 and {i["alt"] for i in dom.images} == {"f1", "f2"}
    # The checks come from checks.json, marked.
    checks = next(t for t in dom.tables if t[0] == ["Check", "Measured", "Criterion", "Result"])
    assert [(r[0], r[-1]) for r in checks[1:]] == [("ratio <a>", "PASS"), ("drops & losses", "FAIL")]
    assert ("pass", "PASS") in dom.marked and ("fail", "FAIL") in dom.marked


def test_without_report_md_the_files_make_the_page(tmp_path: Path) -> None:
    d = make_reproduction(tmp_path / "repro")
    (d / "report.md").unlink()
    dom = read_dom(write_report(d).read_text(encoding="utf-8"))
    assert ("fail", "FAIL: 1 of 2 checks passed (quick form)") in dom.marked
    assert len(dom.tables) == 3 and len(dom.images) == 2


def test_sweep_metrics_can_be_chosen(tmp_path: Path) -> None:
    d = make_sweep_store(tmp_path / "sweep")
    out = tmp_path / "pages" / "sweep.html"
    p = run_cli("report", d, "--out", out, "--metric", "timeouts", "--metric", "flow.bulk.goodput_bps")
    assert p.returncode == 0, p.stderr
    alts = [i["alt"] for i in read_dom(out.read_text(encoding="utf-8")).images]
    assert alts == [
        "timeouts against link[1].queue.limit",
        "timeouts against flow[0].cc",
        "flow.bulk.goodput_bps against link[1].queue.limit",
        "flow.bulk.goodput_bps against flow[0].cc",
    ]
    assert not (d / "report.html").exists()


def test_links_follow_a_page_written_elsewhere(tmp_path: Path) -> None:
    d = make_reproduction(tmp_path / "repro")
    out = write_report(d, tmp_path / "pages" / "r.html")
    assert 'href="../repro/t1.csv"' in out.read_text(encoding="utf-8")


def test_python_api_returns_the_path(tmp_path: Path) -> None:
    d = make_reproduction(tmp_path / "repro")
    assert write_report(str(d)) == d / "report.html"
    assert render_report(d) == (d / "report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("what", ["missing", "empty", "file"])
def test_not_a_report_directory_exits_2_naming_it(tmp_path: Path, what: str) -> None:
    d = tmp_path / f"not-a-result-{what}"
    if what == "empty":
        d.mkdir()
    elif what == "file":
        d.write_text("x", encoding="utf-8")
    p = run_cli("report", d)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"error: {d}: ") and "Traceback" not in p.stderr
    assert not (tmp_path / "report.html").exists()
    with pytest.raises(InvalidInputError) as e:
        write_report(d)
    assert e.value.file == str(d)


def test_bad_metric_and_arguments_exit_2(tmp_path: Path) -> None:
    sweep = make_sweep_store(tmp_path / "sweep")
    p = run_cli("report", sweep, "--metric", "no_such_metric")
    assert p.returncode == 2
    assert "--metric" in p.stderr and "no_such_metric" in p.stderr and "goodput_bps" in p.stderr
    repro = make_reproduction(tmp_path / "repro")
    p = run_cli("report", repro, "--metric", "goodput_bps")
    assert p.returncode == 2 and "sweep" in p.stderr
    p = run_cli("report")
    assert p.returncode == 2 and "usage: lfnlab report" in p.stderr
    p = run_cli("report", "--help")
    assert p.returncode == 0 and "report.html" in p.stdout


def test_figures_are_png_data_uris_with_sizes(tmp_path: Path) -> None:
    d = make_reproduction(tmp_path / "repro")
    text = write_report(d).read_text(encoding="utf-8")
    imgs = re.findall(r"<img [^>]*>", text)
    assert len(imgs) == 2
    for tag in imgs:
        assert ' width="40"' in tag and ' height="30"' in tag, tag
        assert re.search(r' src="data:image/png;base64,[A-Za-z0-9+/=]+"', tag), tag
