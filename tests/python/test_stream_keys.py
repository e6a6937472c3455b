"""Every reproduction's sweep keeps its random streams aligned across points.

The engine derives a link's random streams from its index (`link[{li}].loss.state`,
`link[{li}].loss`, `link[{li}].impair.{dir}`, `link[{li}].queue` in
crates/lfnlab-core/src/sim/build.rs) and a flow's from its index (`flow[{fi}].cc`, …). A
sweep that moves such an element to another index compares its points under different
random draws: 04.E4.7's r_bg = 0 point once built no background links, so its circuit was
link 4 instead of 6 and drew another Gilbert–Elliott timeline (58 % of the run in Bad
against 36 %, docs/reproduce.md). This test builds the scenarios of every experiment's
quick and full forms (the first CASES_PER_FORM of each; building is cheap, nothing runs)
and requires that each link with a random element (loss, impairment, burst_red queue,
Quick-Start table), named by its ends, and each flow that draws a stream (TCP and Web
flows: `flow[{fi}].cc`; UDP flows with Poisson arrivals or Quick-Start requests; a
constant-rate UDP flow draws none, so 05.E5.2's grid may drop flow 1 at TC1 = 0), named
by its name, keep one index across them. Nodes are not compared: 04.E4.7 sets T4-R beside
T4-P, two topologies.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from lfnlab.reproduce.engine import BenchCase, Case
from lfnlab.reproduce.registry import catalogue

CASES_PER_FORM = 400
EXPERIMENTS = {e.id: e for e in catalogue()}


def random_links(d: dict[str, Any]) -> dict[tuple[str, str], int]:
    """(from, to) → index of every link that draws a random stream keyed by its index."""
    out = {}
    for i, link in enumerate(d.get("link", [])):
        queues = [link.get(k) for k in ("queue", "reverse_queue")]
        if (
            "loss" in link
            or "impair" in link
            or "quickstart" in link
            or "reverse_quickstart" in link
            or any(isinstance(qd, dict) and qd.get("kind") == "burst_red" for qd in queues)
        ):
            out[(link["from"], link["to"])] = i
    return out


def draws_stream(flow: dict[str, Any]) -> bool:
    """Whether the engine derives a random stream from this flow's index (build.rs `tcp_flow`,
    `udp_flow`, web flows)."""
    if flow.get("kind") == "udp_cbr":
        return flow.get("arrivals") == "poisson" or "qs_requests" in flow
    return True


def test_draws_stream_by_kind() -> None:
    assert draws_stream({"kind": "tcp_bulk"})
    assert draws_stream({"kind": "udp_cbr", "arrivals": "poisson"})
    assert draws_stream({"kind": "udp_cbr", "qs_requests": {"share": 0.5}})
    assert not draws_stream({"kind": "udp_cbr"})


def test_random_links_sees_each_kind() -> None:
    d = {
        "link": [
            {"from": "a", "to": "b"},
            {"from": "b", "to": "c", "loss": {"p": 0.1}},
            {"from": "c", "to": "d", "queue": {"kind": "burst_red"}},
            {"from": "d", "to": "e", "impair": {"jitter": "1us"}},
            {"from": "e", "to": "f", "reverse_quickstart": {}},
            {"from": "f", "to": "g", "queue": {"kind": "drop_tail"}},
        ]
    }
    assert random_links(d) == {("b", "c"): 1, ("c", "d"): 2, ("d", "e"): 3, ("e", "f"): 4}


@pytest.mark.parametrize("experiment_id", sorted(EXPERIMENTS))
def test_sweep_keeps_random_stream_indices(experiment_id: str) -> None:
    e = EXPERIMENTS[experiment_id]
    links: dict[tuple[str, str], set[int]] = defaultdict(set)
    flows: dict[str, set[int]] = defaultdict(set)
    for params in (e.quick, e.full):
        for case in list(e.cases(params))[:CASES_PER_FORM]:
            scenario = case.scenario if isinstance(case, Case) else case.build()
            assert isinstance(case, (Case, BenchCase))
            d = scenario.to_dict()
            for ends, i in random_links(d).items():
                links[ends].add(i)
            for i, flow in enumerate(d.get("flow", [])):
                if draws_stream(flow):
                    flows[flow["name"]].add(i)
    assert {k: sorted(v) for k, v in links.items() if len(v) > 1} == {}
    assert {k: sorted(v) for k, v in flows.items() if len(v) > 1} == {}
