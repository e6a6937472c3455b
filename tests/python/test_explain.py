"""`lfnlab explain` (issue 40): on scenarios whose limit is known by construction, the
explanation names that limit; the what-if rerun of the receive-window case reaches the
wire bound; the engine's limit accounting covers the connected time.

Path: snd —1 Gbit/s— wan —100 Mbit/s, 20 ms one way— rcv (BDP 100 Mbit/s × 40 ms =
500 kB ≈ 345 segments), 20 s, so slow start is a small part of the run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import lfnlab
from lfnlab.explain import LIMITS, explain, what_if
from support import run_cli

BDP_BYTES = 100e6 * 0.040 / 8


def scenario(flow: dict[str, Any], queue: str = "512KiB", loss: float | None = None, duration: str = "20s") -> lfnlab.Scenario:
    bottleneck: dict[str, Any] = {
        "from": "wan",
        "to": "rcv",
        "rate": "100Mbps",
        "delay": "20ms",
        "queue": {"kind": "droptail", "limit": queue},
    }
    if loss is not None:
        bottleneck["loss"] = {"kind": "bernoulli", "p": loss}
    f = {"name": "f", "kind": "tcp_bulk", "from": "snd", "to": "rcv", "cc": "cubic", "sndbuf": "16MiB", "rcvbuf": "16MiB"}
    f.update(flow)
    return lfnlab.Scenario.from_dict(
        {
            "sim": {"duration": duration, "seed": 3, "name": "explain"},
            "node": [
                {"name": "snd", "kind": "host", "nic_rate": "1Gbps"},
                {"name": "wan", "kind": "emulator"},
                {"name": "rcv", "kind": "host", "nic_rate": "1Gbps"},
            ],
            "link": [{"from": "snd", "to": "wan", "rate": "1Gbps", "delay": "0ms"}, bottleneck],
            "flow": [f],
        }
    )


def only_flow(r: lfnlab.Result) -> Any:
    (e,) = explain(r).flows
    return e


def test_the_path_and_the_accounting_are_the_engines() -> None:
    r = lfnlab.run(scenario({}))
    f = r.summary["flows"][0]
    path = f["path"]
    assert path["bottleneck"] == "wan->rcv" and path["bottleneck_bps"] == 100_000_000
    assert path["hops"] == ["snd:ifq", "wan->rcv"]
    assert path["base_rtt_s"] == pytest.approx(0.040)
    # 1448-byte segments in 1538 wire bytes (spec 06 §1.2).
    assert path["wire_bound_bps"] == pytest.approx(100e6 * 1448 / 1538)
    # Every second from establishment to the end is under exactly one limit.
    total = sum(f["limited_s"][k] for k in LIMITS)
    assert total == pytest.approx(20.0 - f["min_rtt_s"], abs=0.01)
    assert f["slow_start_exit_s"] is not None and 0 < f["slow_start_exit_s"] < 5


def test_receive_window_limited_and_the_what_if_reaches_the_wire_bound() -> None:
    # 256 KiB of receive buffer: a window of φ·256 KiB = 128 KiB ≈ 0.26 BDP.
    r = lfnlab.run(scenario({"rcvbuf": "256KiB"}))
    e = only_flow(r)
    assert e.dominant == "rwnd", e.text()
    assert e.rwnd_bytes == pytest.approx(128 * 1024)
    assert e.utilisation < 0.35
    assert "rcvbuf 256KiB" in e.verdict and "flow[0].rcvbuf" in e.lift
    ((_, goodput),) = what_if(r)
    assert goodput is not None and goodput >= 0.95 * e.wire_bound_bps, (goodput, e.wire_bound_bps)


def test_send_buffer_limited() -> None:
    r = lfnlab.run(scenario({"sndbuf": "96KiB"}))
    e = only_flow(r)
    assert e.dominant == "sndbuf", e.text()
    assert e.limited_share["sndbuf"] > 0.5
    assert "flow[0].sndbuf" in e.lift


def test_random_loss_limited_within_the_mathis_band() -> None:
    # NewReno over 1e-4 random loss and a 1-BDP buffer: Mathis' MSS/RTT·1.22/√p ≈ 35 Mbit/s.
    r = lfnlab.run(scenario({"cc": "newreno"}, loss=1e-4, duration="60s"))
    e = only_flow(r)
    assert e.dominant == "random_loss", e.text()
    assert e.losses["random"] > 0 and e.random_loss_rate == pytest.approx(1e-4, rel=0.5)
    mathis = 1448 * 8 / 0.040 * math.sqrt(1.5) / math.sqrt(e.random_loss_rate)
    assert 0.5 * mathis <= e.goodput_bps <= 2.0 * mathis, (e.goodput_bps, mathis)


def test_buffer_limited_newreno_over_a_small_drop_tail_queue() -> None:
    # 32 KiB ≈ 0.07 BDP: every sawtooth overflows the queue and halves a window that
    # needs many round trips to regrow.
    r = lfnlab.run(scenario({"cc": "newreno"}, queue="32KiB"))
    e = only_flow(r)
    assert e.dominant == "loss", e.text()
    assert e.losses["queue_overflow"] > 0 and e.buffer_bdp is not None and e.buffer_bdp < 0.1
    assert e.lift == {"link[1].queue.limit": "1MiB"}


def test_application_limited() -> None:
    r = lfnlab.run(scenario({"app_rate": "20Mbps"}))
    e = only_flow(r)
    assert e.dominant == "application", e.text()
    assert e.goodput_bps == pytest.approx(20e6, rel=0.05)
    assert "20Mbps" in e.verdict


def test_pacing_limited() -> None:
    r = lfnlab.run(scenario({"pacing": {"kind": "internal", "max_rate": "20Mbps"}}))
    e = only_flow(r)
    assert e.dominant == "pacing", e.text()
    assert "max_rate 20Mbps" in e.verdict


def test_a_run_at_the_wire_bound_is_path_limited() -> None:
    e = only_flow(lfnlab.run(scenario({})))
    assert e.dominant == "path" and e.utilisation >= 0.9, e.text()
    assert e.lift == {}


def test_the_command_prints_the_explanation_and_refuses_a_non_result(tmp_path: Path) -> None:
    out = tmp_path / "rw"
    lfnlab.run(scenario({"rcvbuf": "256KiB"}, duration="5s"), out=out)
    p = run_cli("explain", out)
    assert p.returncode == 0, p.stderr
    assert "flow f" in p.stdout and "the receive window" in p.stdout and "=> the receive window" in p.stdout
    assert "BDP 0.50 MB" in p.stdout
    p = run_cli("explain", tmp_path / "nothing")
    assert p.returncode == 2 and p.stderr.startswith(f"error: {tmp_path / 'nothing'}"), p.stderr
