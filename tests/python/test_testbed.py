"""`lfnlab testbed run`: a scenario on real Linux TCP through the `lfnlab emu` relay
(docs/testbed.md).

The refusals need nothing; the runs need root, `ip netns`, iperf3, ethtool and ss, and
are skipped with the reason otherwise. One 15 s CUBIC run (100 Mbit/s, 100 ms RTT,
128 KiB bottleneck) is shared by the assertions; a second run is killed with SIGTERM
after a few seconds. A run whose relay ran late (lateness p99 > 200 µs) is marked
"invalid: host overloaded": its figures are reported, not judged.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

import lfnlab
from lfnlab.testbed import relay_trace
from lfnlab.testbed.sampler import parse_info
from support import FLOWS_COLUMNS, QUEUES_COLUMNS, TCP_COLUMNS, lfnlab_command, run_cli

CUBIC = """\
[sim]
duration = "15s"

[[node]]
name = "snd"
kind = "host"

[[node]]
name = "wan"
kind = "emulator"

[[node]]
name = "rcv"
kind = "host"

[[link]]
from = "snd"
to = "wan"
rate = "1Gbps"
delay = "0ms"

[[link]]
from = "wan"
to = "rcv"
rate = "100Mbps"
delay = "50ms"
queue = { kind = "droptail", limit = "128KiB" }

[[flow]]
name = "bulk"
kind = "tcp_bulk"
from = "snd"
to = "rcv"
cc = "cubic"
pacing = { kind = "off" }
sndbuf = "32MiB"
rcvbuf = "32MiB"

[[monitor]]
link = "wan->rcv"
bin = "100ms"
"""

DURATION_S = 15


def _skip_reason() -> Optional[str]:
    if os.geteuid() != 0:
        return "not running as root (network namespaces, veth pairs and AF_PACKET need it)"
    missing = [t for t in ("ip", "iperf3", "ethtool", "ss") if shutil.which(t) is None]
    if missing:
        return f"{', '.join(missing)} not installed"
    probe = f"lfnlab-probe-{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        return f"`ip netns add` does not work here: {r.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    return None


SKIP = _skip_reason()
needs_testbed = pytest.mark.skipif(SKIP is not None, reason=f"testbed unavailable: {SKIP}")


def _scenario(tmp: Path, text: str = CUBIC, name: str = "cubic.toml") -> Path:
    p = tmp / name
    p.write_text(text, encoding="utf-8")
    return p


# --- refusals (no root needed) ------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "key_path"),
    [
        ('cc = "cubic"', 'cc = "vegas"', "flow[0].cc"),
        ('pacing = { kind = "off" }', 'pacing = { kind = "fq" }', "flow[0].pacing.kind"),
        ('limit = "128KiB"', 'limit_packets = 100', "link[1].queue.limit_packets"),
        ('sndbuf = "32MiB"', 'sndbuf = "32MiB"\ntcp = { sack = false }', "flow[0].tcp.sack"),
        ('kind = "emulator"', 'kind = "router"', "node"),
        ('duration = "15s"', 'duration = "1500ms"', "sim.duration"),
        ('limit = "128KiB"', 'limit = "128 lightyears"', "link[1].queue.limit"),
        # Random loss: Bernoulli, for the whole run, on the link from the emulator to the receiver only.
        ('delay = "0ms"', 'delay = "0ms"\nloss = { kind = "bernoulli", p = 0.01 }', "link[0].loss"),
        ('limit = "128KiB" }', 'limit = "128KiB" }\nloss = { kind = "gilbert_elliott", t_good = "1s", t_bad = "10ms", p_bad = 0.5 }', "link[1].loss.kind"),
        ('limit = "128KiB" }', 'limit = "128KiB" }\nloss = { kind = "bernoulli", p = 0.01, start = "1s" }', "link[1].loss.start"),
        ('limit = "128KiB" }', 'limit = "128KiB" }\nloss = { kind = "bernoulli", p = 0.01, stop = "10s" }', "link[1].loss.stop"),
    ],
)
def test_an_unsupported_scenario_exits_2_naming_the_key_path(tmp_path: Path, old: str, new: str, key_path: str) -> None:
    assert old in CUBIC
    path = _scenario(tmp_path, CUBIC.replace(old, new, 1))
    p = run_cli("testbed", "run", path, "--out", tmp_path / "out", timeout=60)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.startswith(f"error: {path}: {key_path}: "), p.stderr
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "out").exists()


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    path = _scenario(tmp_path)
    for args in (["--repetition", "0"], ["--set", "flow[0].cc=fast"], ["--bogus"]):
        p = run_cli("testbed", "run", path, *args, timeout=60)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.startswith("error: "), (args, p.stderr)
    p = run_cli("emu", "--help", timeout=60)
    assert p.returncode == 0 and "--limit-ba" in p.stdout, p.stdout


# --- the parsers, on fixed inputs ---------------------------------------------


def test_cpu_shares_come_from_proc_stat_differences() -> None:
    from lfnlab.testbed.lab import cpu_share, cpu_times

    now = cpu_times()
    assert set(now) >= {"user", "system", "idle", "steal"}, now  # Linux's /proc/stat
    before = {"user": 100, "nice": 0, "system": 50, "idle": 1000, "iowait": 0, "irq": 0, "softirq": 5, "steal": 10}
    after = {**before, "user": 160, "idle": 1020, "steal": 30}  # 60 + 20 + 20 ticks
    share = cpu_share(before, after)
    assert share["user"] == pytest.approx(0.6) and share["steal"] == pytest.approx(0.2) and share["system"] == 0
    assert cpu_share(before, before) == {} and cpu_share({}, after) == {}


def test_ss_information_line_parses() -> None:
    line = (
        "\t cubic wscale:10,10 rto:308 rtt:105.759/0.018 mss:1448 cwnd:748 ssthresh:747 bytes_sent:9632133 "
        "bytes_retrans:1119304 bytes_acked:7434070 send 81929973bps pacing_rate 98315616bps/10000000000bps "
        "delivery_rate 81839008bps busy:1504ms rwnd_limited:76ms(5.1%) unacked:745 retrans:0/773 minrtt:100 app_limited"
    )
    f = parse_info(line)
    assert (f["cc"], f["cwnd"], f["ssthresh"], f["rtt_ms"], f["rttvar_ms"]) == ("cubic", 748, 747, 105.759, 0.018)
    assert (f["pacing_rate_bps"], f["delivery_rate_bps"], f["retrans_total"], f["rwnd_limited"]) == (98315616, 81839008, 773, 76)
    assert f["app_limited"] is True


def test_queue_bins_follow_the_backlog(tmp_path: Path) -> None:
    # Three 1514-B frames (L2 1518) at 0, 1, 2 µs on a line of 12.304 µs each (1 Gbit/s):
    # the second and third wait; a fourth is dropped. Bins of 10 µs from t0 = 0. The third
    # is lost at random after the line: it still held its place in the queue and on the line.
    trace = tmp_path / "trace.csv"
    trace.write_text(
        "dir,arrival_ns,start_ns,depart_ns,sent_ns,len_bytes\n"
        "a_to_b,0,0,1,1,1514\na_to_b,1000,12304,1,1,1514\na_to_b,2000,24608,36912,drop:link_loss,1514\n"
        "a_to_b,3000,,,drop:tail,1514\nb_to_a,5000,5000,6000,6000,60\n",
        encoding="utf-8",
    )
    f = relay_trace.read(trace)["a_to_b"]
    q = relay_trace.queue_bins(f, 0, 10_000, 3)
    assert q.bytes.tolist() == [3036, 1518, 0]  # at 10 µs two wait; at 20 µs one; at 30 µs none
    assert q.max_bytes.tolist() == [3036, 3036, 1518]  # the first leaves the backlog as it starts, at once
    assert (q.drops.tolist(), q.enqueued.tolist()) == ([1, 0, 0], [3, 0, 0])
    assert relay_trace.egress_bins(f, 0, 10_000, 3)[1].tolist() == [1, 1, 1]
    assert relay_trace.drops_between(f, 0, 3000, "tail") == 0
    assert relay_trace.drops_between(f, 0, 3001, "tail") == 1
    assert relay_trace.drops_between(f, 0, 3000, "link_loss") == 1
    assert relay_trace.drops_between(f, 0, 2000, "link_loss") == 0


# --- real runs ----------------------------------------------------------------


@dataclass
class Run:
    pid: int
    returncode: int
    stdout: str
    stderr: str
    out: Path
    children: dict[int, bytes]


def _stat(pid: int | str) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name: [state, ppid, ...]."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _children(pid: int) -> dict[int, bytes]:
    """The processes whose parent is ``pid``, with their command lines."""
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int(_stat(d.name)[1]) == pid:
                    out[int(d.name)] = (d / "cmdline").read_bytes()
            except (OSError, IndexError, ValueError):
                pass
    return out


def _start(tmp: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*lfnlab_command(), "testbed", "run", str(_scenario(tmp)), "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _wait_for_transfer(p: subprocess.Popen[str], timeout_s: float = 30.0) -> dict[int, bytes]:
    """Waits until the run's iperf3 client runs; returns the run's child processes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and p.poll() is None:
        kids = _children(p.pid)
        if any(b"iperf3\0-c" in c for c in kids.values()):
            return kids
        time.sleep(0.1)
    raise AssertionError(f"the run did not start its transfer (status {p.poll()})")


def _assert_nothing_left(run_pid: int, children: dict[int, bytes]) -> None:
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert f"lfnlab-{run_pid}-" not in names, names
    # A killed run's processes are reaped by init an instant later: a zombie (state Z or X,
    # whose cmdline reads empty) is dead, and the others get a few seconds to go.
    deadline = time.monotonic() + 5.0
    left = dict(children)
    while (left := {pid: c for pid, c in left.items() if _alive(pid, c)}) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes of the run are still there: {left!r}"


def _alive(pid: int, cmdline: bytes) -> bool:
    """Whether the process ``pid`` with this command line still runs (not a zombie)."""
    try:
        if Path(f"/proc/{pid}/cmdline").read_bytes() != cmdline:
            return False
        state = _stat(pid)[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.fixture(scope="module")
def cubic_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    if SKIP is not None:
        pytest.skip(f"testbed unavailable: {SKIP}")
    tmp = tmp_path_factory.mktemp("testbed")
    p = _start(tmp, tmp / "out")
    children = _wait_for_transfer(p)
    stdout, stderr = p.communicate(timeout=DURATION_S + 90)
    yield Run(p.pid, p.returncode, stdout, stderr, tmp / "out", children)


@needs_testbed
def test_a_cubic_run_completes_and_loads(cubic_run: Run) -> None:
    assert cubic_run.returncode == 0, cubic_run.stderr
    r = lfnlab.load_result(cubic_run.out)
    tb = r.summary["testbed"]
    print(cubic_run.stdout)
    f = r.summary["flows"][0]
    assert f["goodput_bps"] > 0 and f["bytes_delivered"] > 0
    assert tb["cc_in_use"] == "cubic" and tb["kernel"]
    if tb["lateness_p99_us"] > 200.0:
        assert not tb["valid"] and tb["reason"] == "invalid: host overloaded", tb
    assert tb["valid"] or tb["reason"].startswith("invalid: "), tb
    assert r.scenario_toml is not None and 'cc = "cubic"' in r.scenario_toml


@needs_testbed
def test_bottleneck_drops_equal_retransmissions(cubic_run: Run) -> None:
    r = lfnlab.load_result(cubic_run.out)
    tb = r.summary["testbed"]
    drops, retrans = tb["bottleneck_drops_in_window"], r.summary["flows"][0]["retransmitted_segments"]
    figures = f"drops {drops}, retransmitted segments {retrans}, relay lateness p99 {tb['lateness_p99_us']} µs"
    print(figures)
    # Issue 11: a run on an overloaded host is reported, neither a pass nor a fail. The
    # identity mostly holds there too, but not always: a relay 12 ms late (p99) dropped
    # 880 frames in the window against 854 retransmissions in one real.M1 run.
    if not tb["valid"]:
        pytest.skip(f"{tb['reason']}: not judged ({figures}; {'; '.join(tb['problems'])})")
    assert abs(drops - retrans) <= 0.02 * max(drops, retrans), figures


@needs_testbed
def test_relay_lateness_is_within_bounds_or_the_run_is_marked_invalid(cubic_run: Run) -> None:
    """Issue 11: lateness p99 below 200 µs, or the run says "invalid: host overloaded"
    (then it is reported, neither a pass nor a fail)."""
    tb = lfnlab.load_result(cubic_run.out).summary["testbed"]
    p99 = tb["lateness_p99_us"]
    overloaded = p99 is not None and p99 > 200
    others = [p for p in tb["problems"] if not p.startswith("invalid: host overloaded")]
    assert not others, others  # frames lost outside the queue, offloads on, another cc: defects
    assert tb["valid"] == (not overloaded), (p99, tb["valid"], tb["reason"])
    if overloaded:
        assert tb["reason"] == "invalid: host overloaded", tb["reason"]
        pytest.skip(f"{tb['reason']}: lateness p99 {p99} µs, reported, not judged")


@needs_testbed
@pytest.mark.engine
def test_tables_have_the_simulator_schemas(cubic_run: Run) -> None:
    import pyarrow.parquet as pq

    r = lfnlab.load_result(cubic_run.out)
    rows_per_s = len(r.tcp) / DURATION_S
    assert 8 <= rows_per_s <= 11, f"{len(r.tcp)} tcp rows in {DURATION_S} s"
    assert r.tcp["t"].is_monotonic_increasing and (r.tcp["cwnd"] > 0).all()
    assert set(TCP_COLUMNS) <= set(r.tcp.columns)
    assert list(r.flows.columns) == FLOWS_COLUMNS and list(r.queues.columns) == QUEUES_COLUMNS
    assert r.queues["drops"].sum() == r.summary["testbed"]["relay"]["a_to_b"]["drops_by_reason"]["tail"]
    scenario = lfnlab.Scenario.from_file(cubic_run.out / "scenario.toml", set={"sim.duration": "1s"})
    sim = lfnlab.run(scenario, out=cubic_run.out.parent / "sim")
    for name in ("flows", "queues", "tcp", "packets", "hosts", "busy", "objects"):
        ours = pq.read_schema(cubic_run.out / f"{name}.parquet")
        theirs = pq.read_schema(sim.out_dir / f"{name}.parquet")  # type: ignore[operator]
        theirs_fields = [(f.name, f.type) for f in theirs if not f.name.startswith("cc_")]
        assert [(f.name, f.type) for f in ours] == theirs_fields, name


@needs_testbed
def test_nothing_is_left_after_a_run(cubic_run: Run) -> None:
    _assert_nothing_left(cubic_run.pid, cubic_run.children)
    summary = json.loads((cubic_run.out / "summary.json").read_text(encoding="utf-8"))
    assert all(ns.startswith(f"lfnlab-{cubic_run.pid}-") for ns in summary["testbed"]["namespaces"])


LOSSY_P = 0.01


@needs_testbed
def test_the_relay_loses_data_frames_at_random_after_the_queue(tmp_path: Path) -> None:
    """A 5-s run, 40 ms RTT, Bernoulli loss 1 % on the emulator's link to the receiver:
    only data frames are lost (ACKs go the other way; the SYN and pure ACKs carry none),
    at about p, and every loss is retransmitted, as every drop is."""
    text = CUBIC.replace('duration = "15s"', 'duration = "5s"').replace(
        'delay = "50ms"', f'delay = "20ms"\nloss = {{ kind = "bernoulli", p = {LOSSY_P} }}'
    )
    p = run_cli("testbed", "run", _scenario(tmp_path, text), "--out", tmp_path / "out", timeout=120)
    assert p.returncode == 0, p.stderr
    s = lfnlab.load_result(tmp_path / "out").summary
    tb, relay = s["testbed"], s["testbed"]["relay"]["a_to_b"]
    lost, data = relay["drops_by_reason"]["link_loss"], relay["frames_in"]
    # Binomial(frames, p) within 5 standard deviations (frames_in includes a few pure ACKs
    # and control frames: the bound is loose on that side).
    sd = (data * LOSSY_P * (1 - LOSSY_P)) ** 0.5
    assert abs(lost - data * LOSSY_P) <= 5 * sd + 1, (lost, data)
    assert s["link_losses"] == [{"link": "wan->rcv", "dropped": lost, "bad_s": None, "transitions": []}]
    assert s["queues"][0]["dropped"] == relay["drops_by_reason"]["tail"]
    assert tb["relay"]["b_to_a"]["drops_by_reason"]["link_loss"] == 0
    figures = f"tail {tb['bottleneck_drops_in_window']} + lost {tb['link_losses_in_window']}, retransmitted {s['flows'][0]['retransmitted_segments']}"
    if not tb["valid"]:
        others = [x for x in tb["problems"] if not x.startswith("invalid: host overloaded")]
        assert not others, others  # a random loss is the path's, not the relay's own
        pytest.skip(f"{tb['reason']}: not judged ({figures})")
    lost_in_window = tb["bottleneck_drops_in_window"] + tb["link_losses_in_window"]
    assert abs(lost_in_window - s["flows"][0]["retransmitted_segments"]) <= max(2, 0.02 * lost_in_window), figures


@needs_testbed
def test_a_run_killed_with_sigterm_leaves_nothing(tmp_path: Path) -> None:
    p = _start(tmp_path, tmp_path / "out")
    children = _wait_for_transfer(p)
    time.sleep(2)
    p.send_signal(signal.SIGTERM)
    _, stderr = p.communicate(timeout=60)
    assert p.returncode == 1, stderr
    assert "stopped by SIGTERM" in stderr and "Traceback" not in stderr, stderr
    assert not (tmp_path / "out").exists()
    _assert_nothing_left(p.pid, children)


@needs_testbed
def test_a_run_killed_with_sigkill_is_cleaned_up_by_the_next(tmp_path: Path) -> None:
    """SIGKILL cannot be caught: the processes die with the run (pdeathsig), the
    namespaces stay, and the next run's start removes them as orphans."""
    from lfnlab.testbed.orphans import orphans, reap_orphans

    p = _start(tmp_path, tmp_path / "out")
    children = _wait_for_transfer(p)
    p.kill()
    p.communicate(timeout=30)
    left = [n for n in orphans() if n.startswith(f"lfnlab-{p.pid}-")]
    assert len(left) == 3, left  # the killed run's three namespaces, and only orphans are listed
    assert not [n for n in orphans() if not n.startswith("lfnlab-")]
    reaped = reap_orphans()
    assert set(left) <= set(reaped), (left, reaped)
    _assert_nothing_left(p.pid, children)

