"""Figures for a networking engineer (issue 40 item 2): each kind rendered for the
dumbbell, its elements checked (lines present, labels, units), `ax=` for notebooks,
and `lfnlab plot --kind` on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

import lfnlab
from lfnlab import plot
from support import ROOT, run_cli

DUMBBELL = ROOT / "examples" / "dumbbell.toml"

pytestmark = pytest.mark.engine


@pytest.fixture(scope="module")
def dumbbell() -> lfnlab.Result:
    # 3 s: slow start ends and the first losses fall inside the captured frames (from 2 s).
    return lfnlab.run(lfnlab.Scenario.from_file(DUMBBELL, set={"sim.duration": "3s"}))


def labels(ax: object) -> list[str]:
    handles, names = ax.get_legend_handles_labels()  # type: ignore[attr-defined]
    return list(names)


def test_the_overview_has_its_four_panels_with_their_lines(dumbbell: lfnlab.Result) -> None:
    fig = plot.overview(dumbbell)
    goodput, cwnd, queue, rtt = fig.axes
    assert goodput.get_ylabel() == "goodput (Mbit/s)" and goodput.get_ylim()[0] == 0
    assert "wan->rcv 500 Mbit/s" in labels(goodput) and "wire bound 470.7 Mbit/s" in labels(goodput)
    assert cwnd.get_ylabel() == "cwnd (segments)"
    names = labels(cwnd)
    # BDP = 470.7 Mbit/s × 200 ms / 1448 B of payload per segment.
    assert "BDP 8127" in names and any(n.startswith("BDP + buffer ") for n in names), names
    assert "bulk retransmissions" in names
    assert queue.get_ylabel() == "queue (KiB)" and "limit 128 KiB" in labels(queue) and "drops" in labels(queue)
    assert rtt.get_ylabel() == "RTT (ms)" and "base RTT 200 ms" in labels(rtt) and "bulk srtt" in labels(rtt)
    assert fig.axes[-1].get_xlabel() == "time (s)"


def test_each_panel_draws_on_a_given_axes_for_a_notebook(dumbbell: lfnlab.Result) -> None:
    from matplotlib.figure import Figure

    fig = Figure()
    axes = fig.subplots(1, 4)
    for draw, ax in zip((plot.goodput, plot.cwnd, plot.queue, plot.rtt), axes):
        assert draw(dumbbell, ax) is ax
        assert ax.get_lines(), draw.__name__


def test_the_time_sequence_graph_shows_data_retransmissions_acks_window_and_sacks(dumbbell: lfnlab.Result, tmp_path: Path) -> None:
    ax = plot.tseq(dumbbell, path=tmp_path / "tseq.png")
    assert (tmp_path / "tseq.png").stat().st_size > 10_000
    assert ax.get_ylabel() == "sequence (MB)"
    assert {"data", "retransmission", "ACK", "receive window", "SACK"} <= set(labels(ax)), labels(ax)
    # The ACK line never passes the highest byte sent, and the window edge lies above it.
    ack = next(line for line in ax.get_lines() if line.get_label() == "ACK").get_ydata()
    win = next(line for line in ax.get_lines() if line.get_label() == "receive window").get_ydata()
    assert (win >= ack).all()
    window = plot.tseq(dumbbell, "bulk", (2.2, 2.4))
    assert all(2.2 <= x <= 2.4 for line in window.get_lines() for x in line.get_xdata())
    with pytest.raises(ValueError, match="no captured TCP frames of flow 'nope'"):
        plot.tseq(dumbbell, "nope")


def test_the_command_draws_each_kind(tmp_path: Path) -> None:
    out = tmp_path / "run"
    lfnlab.run(lfnlab.Scenario.from_file(DUMBBELL, set={"sim.duration": "3s"}), out=out)
    for kind in plot.KINDS:
        p = run_cli("plot", out, "--kind", kind)
        assert p.returncode == 0, (kind, p.stderr)
        assert (out / f"{kind}.png").stat().st_size > 10_000, kind
    p = run_cli("plot", out, "--kind", "tseq", "--flow", "nope")
    assert p.returncode == 2 and "no captured TCP frames of flow 'nope'" in p.stderr
