"""The chapter 03 shared helpers (pure formulas, no runs)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from lfnlab.reproduce.ch03_end_node_rate_control.path03 import ACKS_IN, SENDER_NIC
from lfnlab.reproduce.ch03_end_node_rate_control import common03 as c


def test_trial_stats() -> None:
    s = c.trial_stats([1.0, 2.0, 3.0, 10.0])
    assert (s["min"], s["max"], s["median"], s["mean"]) == (1.0, 10.0, 2.5, 4.0)
    assert s["std"] == pytest.approx(np.std([1, 2, 3, 10], ddof=1))
    assert s["norm_std"] == pytest.approx(s["std"] / 4.0)
    one = c.trial_stats([5.0])
    assert one["trials"] == 1 and math.isnan(one["std"]) and math.isnan(one["norm_std"])
    with pytest.raises(ValueError):
        c.trial_stats([])


def test_throughputs() -> None:
    summary = {"flows": [{"name": "f", "bytes_delivered": 75_000_000, "completion_s": 3.0}]}
    assert c.throughput_mbps(summary, "f", 60.0) == pytest.approx(10.0)
    assert c.completion_throughput_mbps(summary, "f") == pytest.approx(200.0)
    summary["flows"][0]["completion_s"] = None
    assert math.isnan(c.completion_throughput_mbps(summary, "f"))


def test_packet_counts_on_a_grid() -> None:
    flows = pd.DataFrame(
        {
            "monitor": [SENDER_NIC, SENDER_NIC, ACKS_IN],
            "flow": ["f", "f", "f"],
            "t": [0.000, 0.002, 0.001],
            "bytes": [1518, 3036, 66],
            "packets": [1, 2, 1],
        }
    )
    pc = c.packet_counts(flows, 0.0, 0.004)
    assert pc["t_ms"].tolist() == pytest.approx([0.0, 1.0, 2.0, 3.0])
    assert pc["sent"].tolist() == [1, 0, 2, 0]
    assert pc["acks"].tolist() == [0, -1, 0, 0]


def test_busy_idle_follows_the_formulas() -> None:
    # Two windows of 0.1 s at GbE with IPG 8: 10 full frames, then none.
    flows = pd.DataFrame({"monitor": [SENDER_NIC], "flow": ["f"], "t": [0.05], "bytes": [15180], "packets": [10]})
    b = c.busy_idle(flows, base_rtt_s=0.1, nic_bps=1e9, ipg_bytes=8)
    row = b.iloc[0]
    busy_s = 10 * (1518 + 16) / 125e6
    assert row["busy_ms"] == pytest.approx(busy_s * 1e3)
    x = 10 * 1448 / 0.1
    assert row["x_mbps"] == pytest.approx(x * 8 / 1e6)
    assert row["z_bytes"] == pytest.approx((125e6 - x) * busy_s)
