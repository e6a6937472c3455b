"""pcap export (`[[capture]]`, docs/pcap.md), read back by Wireshark's tshark.

The acceptance of issue 10: a capture of a short TCP transfer with SACK and
timestamps reads in tshark with zero malformed packets, the right count, and
TCP sequence analysis showing exactly the retransmissions the simulator made;
gap frames appear as 802.3x PAUSE frames on the access link. tshark comes from
Debian's package (`.ci/run` installs it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import lfnlab
from support import ROOT

pytestmark = pytest.mark.engine

TSHARK = shutil.which("tshark")
if TSHARK is None and os.environ.get("CI"):
    raise RuntimeError("tshark is missing: .ci/run installs Debian's tshark package")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (apt-get install tshark)")

#: snd (10.0.0.1) —1 Gbit/s— wan —100 Mbit/s, 20 ms, 64 KiB— rcv: slow start overruns the
#: small buffer, so SACK recovery retransmits; the tap sits on the sender's access link.
TRANSFER = """
[sim]
duration = "{duration}"
seed = 1

[[node]]
name = "snd"
kind = "host"

[[node]]
name = "wan"
kind = "router"

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
delay = "20ms"
queue = {{ kind = "droptail", limit = "64KiB" }}

[[flow]]
name = "bulk"
kind = "tcp_bulk"
from = "snd"
to = "rcv"
cc = "newreno"

[[monitor]]
link = "snd->wan"
bin = "100ms"
capture_packets = 1000000
{capture}
"""

CAPTURE = """
[[capture]]
link = "snd->wan"
name = "access"
"""


def tshark(pcap: Path, display_filter: str, *fields: str, prefs: tuple[str, ...] = ()) -> list[list[str]]:
    """Rows of ``fields`` (or of frame numbers) of the frames matching ``display_filter``."""
    assert TSHARK is not None
    cmd = [TSHARK, "-n", "-r", str(pcap), "-Y", display_filter, "-T", "fields"]
    for p in prefs:
        cmd += ["-o", p]
    for f in fields or ("frame.number",):
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=300, stdin=subprocess.DEVNULL)
    return [line.split("\t") for line in out.stdout.splitlines()]


def transfer(tmp: Path, capture: str, duration: str = "3s") -> lfnlab.Result:
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "transfer.toml"
    path.write_text(TRANSFER.format(duration=duration, capture=capture), encoding="utf-8")
    return lfnlab.run(lfnlab.Scenario.from_file(path), out=tmp / "out")


def resent(frames: pd.DataFrame) -> list[int]:
    """Sequence numbers of the data frames that repeat bytes sent before, from the
    simulator's own frame log (``packets.parquet``) at the same egress."""
    data = frames[(frames["kind"] == "data") & (frames["dir"] == 0)]
    high, out = 0, []
    for seq, length in zip(data["seq"], data["payload"]):
        if seq < high:
            out.append(int(seq))
        high = max(high, int(seq + length))
    return out


@needs_tshark
def test_tshark_reads_a_tcp_capture_with_the_simulated_retransmissions(tmp_path: Path) -> None:
    r = transfer(tmp_path, CAPTURE)
    pcap = tmp_path / "out" / "access.pcap"
    (cap,) = r.summary["captures"]
    flow = r.summary["flows"][0]
    assert cap["file"] == "access.pcap" and cap["missed"] == 0
    assert flow["retransmitted_segments"] > 20, "the scenario must make SACK recovery retransmit"

    # The right count: every frame the simulator put on the link, both directions.
    assert len(tshark(pcap, "frame")) == cap["frames"]
    sent = r.packets[r.packets["monitor"] == "snd->wan"]
    assert cap["frames"] > len(sent), "the reverse direction (ACKs) is captured too"
    assert len(tshark(pcap, "ip.src == 10.0.0.1")) == len(sent)
    # Zero malformed packets, and no error from any dissector.
    assert tshark(pcap, "_ws.malformed || _ws.expert.severity == error") == []
    # Real options: SACK-permitted and window scale on the SYNs, timestamps on
    # every segment, SACK blocks on the duplicate ACKs.
    assert len(tshark(pcap, "tcp.flags.syn == 1 && tcp.options.sack_perm && tcp.options.wscale.shift")) == 2
    assert len(tshark(pcap, "tcp && !tcp.options.timestamp.tsval")) == 0
    assert len(tshark(pcap, "ip.src == 10.0.0.3 && tcp.options.sack_le")) > 0
    # Data frames echo the receiver's latest TSval (RFC 7323 §4.3), the first flight the
    # SYN-ACK's: timestamp-based RTT tools need it (issue 38 item 5: 1 of 50 233 did).
    echoes = tshark(pcap, "ip.src == 10.0.0.1 && tcp.len > 0", "tcp.options.timestamp.tsecr")
    assert len(echoes) > 100 and all(int(row[0]) > 0 for row in echoes)

    # Sequence analysis: the data frames tshark flags as resent are the ones the
    # simulator resent. A capture at the sender sees a retransmission that follows
    # its previous segment within an RTT as "out of order" (Wireshark's heuristic:
    # the sender never sends new data out of order), so both flags count.
    flagged = tshark(
        pcap,
        "ip.src == 10.0.0.1 && (tcp.analysis.retransmission || tcp.analysis.out_of_order"
        " || tcp.analysis.spurious_retransmission)",
        "tcp.seq",
    )
    tshark_seqs = sorted(int(row[0]) - 1 for row in flagged)  # relative seq 1 is the first data byte
    assert len(tshark_seqs) == flow["retransmitted_segments"]
    assert tshark_seqs == sorted(resent(sent))


@needs_tshark
def test_checksums_verify_with_whole_frames(tmp_path: Path) -> None:
    r = transfer(tmp_path, CAPTURE + 'snaplen = "2000B"\n', duration="1s")
    rows = tshark(
        tmp_path / "out" / "access.pcap",
        "frame",
        "ip.checksum.status",
        "tcp.checksum.status",
        prefs=("ip.check_checksum:TRUE", "tcp.check_checksum:TRUE"),
    )
    # With checking on, 1 is good (0 bad, 2 unverified: a truncated frame).
    assert len(rows) == r.summary["captures"][0]["frames"]
    assert {tuple(row) for row in rows} == {("1", "1")}


def test_capturing_changes_no_result_and_repeats_byte_for_byte(tmp_path: Path) -> None:
    plain = transfer(tmp_path / "a", "", duration="1s")
    tapped = transfer(tmp_path / "b", CAPTURE, duration="1s")
    assert "captures" not in plain.summary
    # A tapped router port is served by the woken FIFO, not the eager one
    # (net::eager_fifo): the same frames at the same times, with other events.
    varying = ("wall_seconds", "captures", "events_executed", "event_hash")
    strip = lambda s: {k: v for k, v in s.items() if k not in varying}  # noqa: E731
    assert strip(plain.summary) == strip(tapped.summary)
    for name in ("flows", "tcp", "queues", "packets"):
        pd.testing.assert_frame_equal(getattr(plain, name), getattr(tapped, name))
    transfer(tmp_path / "c", CAPTURE, duration="1s")
    first, again = (tmp_path / d / "out" / "access.pcap" for d in ("b", "c"))
    assert first.read_bytes() == again.read_bytes()


@needs_tshark
def test_gap_frames_appear_as_pause_frames_on_the_access_link(tmp_path: Path) -> None:
    scenario = lfnlab.Scenario.from_file(
        ROOT / "examples" / "gap_pacing.toml",
        set={"sim.duration": "1s", "capture": [{"link": "snd->wan", "name": "gap"}]},
    )
    r = lfnlab.run(scenario, out=tmp_path / "out")
    pcap = tmp_path / "out" / "gap.pcap"
    (cap,) = r.summary["captures"]
    assert cap["pause_frames"] > 0
    pauses = tshark(pcap, "macc.opcode == 0x0001", "macc.pause_time", "eth.dst")
    assert len(pauses) == cap["pause_frames"]
    assert {tuple(p) for p in pauses} == {("0", "01:80:c2:00:00:01")}, "gap frames are PAUSE(0) to the reserved address"
    assert tshark(pcap, "_ws.malformed || _ws.expert.severity == error") == []
    assert len(tshark(pcap, "frame")) == cap["frames"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["captures"] == r.summary["captures"]
