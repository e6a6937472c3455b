"""The typed scenario builder (`lfnlab.build`, issue 37 item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

import lfnlab
from lfnlab import build as b

ROOT = Path(__file__).resolve().parents[2]


def dumbbell() -> b.Network:
    """examples/dumbbell.toml, built in Python."""
    net = b.Network(b.Sim("dumbbell", duration="60s", seed=1))
    snd = net.add(b.Host("snd", nic_rate="1Gbps", txqueuelen=1000))
    wan = net.add(b.Emulator("wan"))
    rcv = net.add(b.Host("rcv", nic_rate="1Gbps"))
    net.add(b.Link(snd, wan, rate="1Gbps", delay="0ms"))
    net.add(b.Link(wan, rcv, rate="500Mbps", delay="100ms", queue=b.DropTail(limit="128KiB")))
    net.add(b.Flow("bulk", snd, rcv, kind="tcp_bulk", cc="newreno", sndbuf="32MiB", rcvbuf="32MiB"))
    net.add(b.Monitor(wan, rcv, bin="1ms", capture_packets=30000, capture_from="2s"))
    net.add(b.Monitor(wan, snd, bin="10ms", capture_packets=30000, capture_from="2s"))
    return net


def test_the_built_dumbbell_is_the_example_file() -> None:
    built = dumbbell().scenario()
    from_file = lfnlab.Scenario.from_file(ROOT / "examples" / "dumbbell.toml")
    assert built.to_toml() == from_file.to_toml()


def test_tables_leave_out_what_is_unset_and_keep_extra_keys_last() -> None:
    host = b.Host("h", mtu=9000, keys={"cpu": {"cores": 4}})
    assert host.to_dict() == {"name": "h", "kind": "host", "mtu": 9000, "cpu": {"cores": 4}}
    assert b.Router("r").to_dict() == {"name": "r", "kind": "router"}
    link = b.Link("a", "b", rate="1Gbps", delay="5ms", queue=b.DropTail(limit_packets=100))
    assert link.to_dict() == {"from": "a", "to": "b", "rate": "1Gbps", "delay": "5ms", "queue": {"kind": "droptail", "limit_packets": 100}}
    monitor = b.Monitor("a", "b", bin="10ms", point="ingress")
    assert monitor.to_dict() == {"link": "a->b", "bin": "10ms", "point": "ingress"}
    net = b.Network(b.Sim("empty", duration="1s"))
    assert net.to_dict() == {"sim": {"name": "empty", "duration": "1s"}}


def test_the_core_validates_and_names_the_key_path() -> None:
    net = dumbbell()
    net.links[1].rate = "fast"
    with pytest.raises(lfnlab.InvalidInputError) as e:
        net.scenario()
    assert e.value.key_path == "link[1].rate"
    assert e.value.file == "<dumbbell>"


def test_only_scenario_objects_can_be_added() -> None:
    net = b.Network(b.Sim("x", duration="1s"))
    with pytest.raises(TypeError, match="expected a node, Link, Flow or Monitor"):
        net.add({"name": "h", "kind": "host"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [(b.rate(1e9), "1Gbps"), (b.rate(62.5e6 * 8), "500Mbps"), (b.rate(1234), "1234bps"), (b.size(6.25e6), "6250000B"), (b.time(0.025), "25ms"), (b.time(1.5e-6), "1500ns"), (b.time(2), "2s")],
)
def test_quantities_are_exact_scenario_strings(text: str, expected: str) -> None:
    assert text == expected


def test_a_quantity_that_is_not_whole_in_its_unit_is_refused() -> None:
    with pytest.raises(ValueError, match="not a whole number"):
        b.size(0.5)
    with pytest.raises(ValueError, match="time in ns"):
        b.time(1e-10)


def test_the_tutorials_builder_example_runs_and_means_what_it_says() -> None:
    text = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    section = text.split("### The same scenario, built in Python", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, object] = {}
    exec(compile(code, "docs/tutorial.md", "exec"), scope)
    s = scope["s"]
    assert isinstance(s, lfnlab.Scenario)
    d = s.to_dict()
    assert d["link"][1]["rate"] == "500Mbps" and d["flow"][0]["sndbuf"] == "25MB"  # 2 BDP, as the core writes it
    assert [n["name"] for n in d["node"]] == ["snd", "wan", "rcv"]
