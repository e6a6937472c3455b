"""A switch node (spec 05 §2.2) built from Python dicts: the same validation as TOML, its
summary section, and bad switch keys as InvalidInputError with the key path."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import lfnlab

pytestmark = pytest.mark.engine


def _scenario(config: str, tc_mbps: int = 1000) -> dict[str, Any]:
    hosts = [{"name": n, "kind": "host"} for n in ("ch2", "ch3", "ch0")]
    return {
        "sim": {"duration": "200ms", "seed": 3, "trace": {"mode": "off"}},
        "node": hosts[:2] + [{"name": "dut", "kind": "switch", "switch": {"config": config}}] + hosts[2:],
        "link": [
            {"from": a, "to": b, "rate": "1Gbps", "delay": "0ns"} for a, b in (("ch2", "dut"), ("ch3", "dut"), ("dut", "ch0"))
        ],
        "flow": [
            {"name": f"flow{k}", "kind": "udp_cbr", "from": src, "to": "ch0", "rate": f"{tc_mbps}Mbps", "size": 1500}
            for k, src in ((1, "ch2"), (2, "ch3"))
        ],
    }


def test_a_switch_scenario_runs_and_reports_its_ports() -> None:
    r = lfnlab.run(lfnlab.Scenario.from_dict(_scenario("rr_simple")))
    (sw,) = r.summary["switches"]
    assert sw["name"] == "dut" and sw["config"] == "rr_simple"
    ports = {p["name"]: p for p in sw["ports"]}
    # Two line-rate inputs into one output: the inputs lose what the output cannot send.
    assert ports["dut->ch2"]["dropped"] > 0 and ports["dut->ch3"]["dropped"] > 0
    assert ports["dut->ch0"]["sent"] == sum(p["received"] - p["dropped"] for p in sw["ports"]) - _inside(sw)
    assert set(sw["dropped_by_flow"]) == {"flow1", "flow2"}


def _inside(sw: dict[str, Any]) -> int:
    """Frames the switch still holds at the end: at most one sub-queue's worth per input."""
    rx = sum(p["received"] - p["dropped"] for p in sw["ports"])
    sent = sum(p["sent"] for p in sw["ports"])
    assert 0 <= rx - sent <= 2 * 11
    return rx - sent


def test_bad_switch_keys_raise_invalid_input_with_the_key_path() -> None:
    s = _scenario("oq_cs")
    bad = copy.deepcopy(s)
    bad["node"][2]["switch"]["quantum"] = 0
    with pytest.raises(lfnlab.InvalidInputError) as e:
        lfnlab.Scenario.from_dict(bad)
    assert e.value.key_path == "node[2].switch.quantum"
    bad = copy.deepcopy(s)
    bad["link"][2]["queue"] = {"kind": "droptail", "limit": "64KiB"}
    with pytest.raises(lfnlab.InvalidInputError) as e:
        lfnlab.Scenario.from_dict(bad)
    assert e.value.key_path == "link[2].queue"
