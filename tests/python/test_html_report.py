"""Acceptance of ``report.html`` in a real browser (headless Chromium, no network).

For a reproduction output, a single run's result directory and a sweep store, the
page is opened three times:

1. as it is, with ``--dump-dom`` and a full network log: the DOM must show the title,
   every table and every figure of the directory; the log must hold no request of the
   page for anything but itself and ``data:`` URIs;
2. a copy elsewhere with a probe script added (the report itself has none), which
   writes each image's decoded size into the DOM: every figure must decode, at the
   size its PNG says;
3. as it is, as a screenshot: the page must not be blank.

The network check is shown to be able to fail: the same page with an external image
injected (and its Content-Security-Policy removed) is caught; with the policy kept,
the browser refuses to load it. Skipped only when Chromium is not installed.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from html_support import Dom, make_reproduction, make_sweep_store, read_dom
from support import ROOT, run_cli

CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and Path(p).is_file()), None)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    # Nothing leaves the machine, whatever the page asks for.
    "--host-resolver-rules=MAP * ~NOTFOUND",
]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: Writes, once the page has loaded, each image's state into <body data-decoded="...">.
PROBE = (
    "<script>addEventListener('load', () => document.body.setAttribute('data-decoded',"
    " Array.from(document.images).map(i => i.complete + ':' + i.naturalWidth + 'x' + i.naturalHeight)"
    ".join(' ')))</script>"
)

EXTERNAL_IMG = '<img alt="external" src="http://example.invalid/lfnlab-probe.png">'


#: Launches of a browser that died from a signal before the next one is tried. A fresh-clone
#: CI run on a loaded machine once saw Chromium end with SIGSEGV (return code -11) while
#: taking a screenshot; it passed on every rerun. A browser's crash says nothing about the
#: page, so such a launch is tried once more; an exit with a status (Chromium's own error)
#: and a second crash still fail.
CRASH_RETRIES = 1


def _chromium(args: list[str], work: Path, name: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    for attempt in range(CRASH_RETRIES + 1):
        profile = work / f"profile-{name}-{attempt}"  # a fresh profile for every launch
        p = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=90,
        )
        if p.returncode >= 0:
            break
    assert p.returncode == 0, f"chromium {' '.join(args)} failed (return code {p.returncode}):\n{p.stderr[-3000:]}"
    return p


def _net_log(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except ValueError:  # a log cut short: close the event list
        return json.loads(text.rstrip().rstrip(",") + "]}")


def page_requests(net_log: Path) -> list[str]:
    """URLs of every request made on behalf of a file:// page, from Chromium's net log.

    Chromium makes requests of its own too (time, sign-in), whatever the flags; those
    belong to no page. A request belongs to the page when the network isolation key or
    site-for-cookies of its job is the file:// site, or its initiator is the page's
    (opaque, "null") origin."""
    log = _net_log(net_log)
    constants = log["constants"]
    url_request = constants["logSourceType"]["URL_REQUEST"]
    start_job = constants["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if event["source"]["type"] != url_request or event["type"] != start_job or "url" not in params:
            continue
        nik = str(params.get("network_isolation_key", ""))
        cookies = str(params.get("site_for_cookies", ""))
        initiator = str(params.get("initiator", ""))
        if "file://" in nik or "file://" in cookies or initiator == "null" or initiator.startswith("file:"):
            urls.append(str(params["url"]))
    return urls


def external(urls: list[str]) -> list[str]:
    return [u for u in urls if not u.startswith(("file:", "data:"))]


@dataclass
class Rendered:
    dom: Dom
    requests: list[str]
    decoded: list[tuple[bool, int, int]]
    screenshot: bytes


def load(page: Path, work: Path) -> tuple[Dom, list[str]]:
    """The page's DOM after load, and every request it made."""
    work.mkdir(parents=True, exist_ok=True)
    log = work / "net.json"
    p = _chromium(
        [f"--log-net-log={log}", "--net-log-capture-mode=Everything", "--dump-dom", page.resolve().as_uri()],
        work,
        "dom",
    )
    return read_dom(p.stdout), page_requests(log)


def render(page: Path, work: Path) -> Rendered:
    dom, requests = load(page, work)
    probe = work / "probe" / "page.html"  # elsewhere: the page must need nothing beside it
    probe.parent.mkdir(parents=True)
    text = page.read_text(encoding="utf-8")
    # The page's policy forbids scripts; the probe's copy allows its inline one (and
    # still only data: images).
    assert "default-src 'none';" in text
    text = text.replace("default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1)
    probe.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    p = _chromium(["--dump-dom", probe.as_uri()], work, "probe")
    state = read_dom(p.stdout).body_attrs.get("data-decoded", "")
    decoded = []
    for item in state.split():
        complete, size = item.split(":")
        w, h = size.split("x")
        decoded.append((complete == "true", int(w), int(h)))
    shot = work / "shot.png"
    _chromium(["--window-size=1200,1600", f"--screenshot={shot}", page.resolve().as_uri()], work, "shot")
    return Rendered(dom, requests, decoded, shot.read_bytes())


def _png_of(img: dict[str, str]) -> bytes:
    import base64

    prefix = "data:image/png;base64,"
    assert img["src"].startswith(prefix), img["src"][:60]
    return base64.b64decode(img["src"][len(prefix) :], validate=True)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def assert_offline_and_complete(r: Rendered, title: str, n_figures: int) -> None:
    """What every page must satisfy: title, figures that decode, no request, not blank."""
    assert r.dom.title == title
    assert r.dom.headings and r.dom.headings[0] == title
    assert r.dom.scripts == 0, "the report needs no script"
    assert external(r.requests) == [], f"the page requested {external(r.requests)}"
    for tag, attr, value in r.dom.urls:  # nothing that could load from elsewhere
        assert value.startswith("data:image/png;base64,"), (tag, attr, value[:80])
    assert len(r.dom.images) == n_figures
    for img in r.dom.images:
        assert img.get("alt"), "every figure has alt text"
        data = _png_of(img)
        assert (int(img["width"]), int(img["height"])) == _png_size(data)
    # The browser decoded every image at its PNG's size.
    assert [(True, *_png_size(_png_of(i))) for i in r.dom.images] == r.decoded
    _assert_not_blank(r.screenshot)


def _assert_not_blank(png: bytes) -> None:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        rgb = im.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20)
        assert colours is not None and len(colours) > 50, "the screenshot is (nearly) blank"
        assert rgb.getextrema() != ((255, 255), (255, 255), (255, 255))


def _csv_rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def _md_table_count(md: str) -> int:
    return len(re.findall(r"^\|(?:-+\|)+\s*$", md, flags=re.M))


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("html") / "06.V1"
    p = run_cli("reproduce", "06.V1", "--quick", "--out", d)
    assert p.returncode == 0, p.stdout + p.stderr
    return d


@pytest.mark.engine
def test_reproduction_report_in_the_browser(reproduction: Path, tmp_path: Path) -> None:
    d = reproduction
    page = d / "report.html"
    assert page.is_file(), "`lfnlab reproduce` writes report.html beside report.md"
    checks = json.loads((d / "checks.json").read_text(encoding="utf-8"))
    assert "report.html" in checks["files"]
    pngs = sorted(d.glob("*.png"))
    r = render(page, tmp_path)
    assert_offline_and_complete(r, f"{checks['experiment']}: {checks['title']}", len(pngs))

    # Every figure of the directory, byte for byte.
    assert sorted(_png_of(i) for i in r.dom.images) == sorted(p.read_bytes() for p in pngs)
    # Every table: report.md's (parameters, checks, each CSV, runs), each CSV by its header.
    assert len(r.dom.tables) == _md_table_count((d / "report.md").read_text(encoding="utf-8"))
    headers = [t[0] for t in r.dom.tables if t]
    for c in sorted(d.glob("*.csv")):
        rows = _csv_rows(c)
        # A rate column in bit/s shows in Mbit/s on the page (issue 40).
        rows[0] = [f"{h.removesuffix('_bps')} (Mbit/s)" if h.endswith("_bps") else h for h in rows[0]]
        assert rows[0] in headers, f"{c.name} is not on the page"
        shown = r.dom.tables[headers.index(rows[0])]
        assert len(shown) == len(rows), c.name
    assert any(h and h[0] == "Parameter" for h in headers), "the parameters"
    # The checks, each with its verdict visibly marked.
    check_table = next(t for t in r.dom.tables if t and t[0] == ["Check", "Measured", "Criterion", "Result"])
    assert [(row[0], row[-1]) for row in check_table[1:]] == [
        (c["name"], "PASS" if c["passed"] else "FAIL") for c in checks["checks"]
    ]
    n_pass = sum(c["passed"] for c in checks["checks"])
    assert r.dom.marked.count(("pass", "PASS")) >= n_pass


@pytest.mark.engine
def test_run_report_in_the_browser(tmp_path: Path) -> None:
    d = tmp_path / "dumbbell"
    # 3 s: the example captures frames from 2 s on, so the page has its time-sequence graph.
    p = run_cli("run", ROOT / "examples" / "dumbbell.toml", "--set", "sim.duration=3s", "--out", d)
    assert p.returncode == 0, p.stderr
    p = run_cli("report", d)
    assert p.returncode == 0, p.stderr
    assert f"report in {d / 'report.html'}" in p.stdout
    summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    r = render(d / "report.html", tmp_path / "browser")
    assert_offline_and_complete(r, "dumbbell: lfnlab run", 2)  # the overview and the time-sequence graph
    alts = [i["alt"] for i in r.dom.images]
    assert alts == ["dumbbell: goodput, cwnd, bottleneck queue and RTT over time", "dumbbell: time-sequence graph"]
    # Issue 40: the page says why the flow got its goodput, and rates are in Mbit/s.
    assert "Why this goodput" in r.dom.headings
    assert any(t.startswith("flow bulk") and "wire bound" in t and "=> " in t for t in r.dom.pres)

    tables = {tuple(t[0]): t for t in r.dom.tables if t}
    flows = next(t for h, t in tables.items() if h[:2] == ("name", "kind"))
    assert [row[0] for row in flows[1:]] == [f["name"] for f in summary["flows"]]
    assert {"goodput (Mbit/s)", "retransmitted_segments", "timeouts"} <= set(flows[0])
    assert flows[1][flows[0].index("goodput (Mbit/s)")] == f"{summary['flows'][0]['goodput_bps'] / 1e6:.2f}".rstrip("0").rstrip(".")
    queues = next(t for h, t in tables.items() if h[:3] == ("name", "enqueued", "dropped"))
    assert [row[0] for row in queues[1:]] == [q["name"] for q in summary["queues"]]
    # The scenario exactly as run.
    assert (d / "scenario.toml").read_text(encoding="utf-8") in r.dom.pres


def test_sweep_report_in_the_browser(tmp_path: Path) -> None:
    d = make_sweep_store(tmp_path / "sweep")
    p = run_cli("report", d)
    assert p.returncode == 0, p.stderr
    r = render(d / "report.html", tmp_path / "browser")
    # goodput_bps and retransmitted_segments, each against both axes.
    assert_offline_and_complete(r, "buffer-vs-cc: lfnlab sweep", 4)
    alts = [i["alt"] for i in r.dom.images]
    assert alts == [
        "goodput_bps against link[1].queue.limit",
        "goodput_bps against flow[0].cc",
        "retransmitted_segments against link[1].queue.limit",
        "retransmitted_segments against flow[0].cc",
    ]
    assert len(r.dom.tables) == 2  # the axes of the plan, the run index
    index = next(t for t in r.dom.tables if t[0][:2] == ["run_id", "status"])
    assert len(index) == 1 + 12
    assert [row[0] for row in index[1:]] == [f"r{i:04d}" for i in range(12)]
    assert r.dom.marked.count(("fail", "failed")) == 1
    assert any('[[axis]]' in text for text in r.dom.pres), "the plan"


def test_external_resource_is_detected(tmp_path: Path) -> None:
    """The network check can fail: an injected external image is seen in the log
    (policy removed), and refused by the browser (policy kept)."""
    d = make_reproduction(tmp_path / "repro")
    assert run_cli("report", d).returncode == 0
    text = (d / "report.html").read_text(encoding="utf-8")
    policy = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>', text)
    assert policy is not None, "the page forbids loading anything"

    clean, requests = load(d / "report.html", tmp_path / "clean")
    assert external(requests) == []

    mutant = tmp_path / "mutant.html"
    mutant.write_text(text.replace(policy.group(0), "").replace("</body>", EXTERNAL_IMG + "</body>"), encoding="utf-8")
    _, requests = load(mutant, tmp_path / "mutant")
    assert external(requests) == ["http://example.invalid/lfnlab-probe.png"]

    guarded = tmp_path / "guarded.html"
    guarded.write_text(text.replace("</body>", EXTERNAL_IMG + "</body>"), encoding="utf-8")
    dom, requests = load(guarded, tmp_path / "guarded")
    assert external(requests) == [], "the Content-Security-Policy blocks it"
    assert len(dom.images) == len(clean.images) + 1
