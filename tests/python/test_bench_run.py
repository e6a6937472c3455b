"""The generator bench loop from Python (docs/switches.md "Bench runs"): the flows table of
`lfnlab.run` for the same scenario, its summary's books, and a scenario of another shape
refused as a SimulationError that names the reason."""

from __future__ import annotations

import pytest

import lfnlab
from lfnlab.bench_run import run_bench
from lfnlab.reproduce.ch05_switches.path05 import bench_scenario

pytestmark = pytest.mark.engine


@pytest.mark.parametrize("config", ["oq_dt", "voq_pim_pi", "iq_fifo"])
def test_bench_loop_gives_the_event_loops_flows_table(config: str) -> None:
    s = bench_scenario("b", config=config, tc1_mbps=700, tc2_mbps=500, duration_s=0.3, seed=4, bin_s=0.001, generator_monitor=True)
    bench = run_bench(s)
    world = lfnlab.run(s)
    assert len(bench.flows) > 0
    assert bench.flows.equals(world.flows)
    books = bench.summary["conservation"]
    assert books["holds"] and books["emitted"] == books["delivered"] + books["dropped"] + books["in_switch"] + books["elsewhere"]
    # Over the line (1200 Mbit/s offered into 1000): the switch refused frames.
    assert sum(f["dropped"] for f in bench.summary["flows"]) > 0
    delivered = {f["name"]: f["bytes_delivered"] for f in bench.summary["flows"]}
    assert delivered == {f["name"]: f["bytes_delivered"] for f in world.summary["flows"]}


def test_other_shapes_are_refused_with_the_reason() -> None:
    d = lfnlab.Scenario.from_dict(
        {
            "sim": {"duration": "10ms"},
            "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
            "link": [{"from": "a", "to": "b", "rate": "1Gbps", "delay": "1ms"}],
            "flow": [{"name": "f", "kind": "udp_cbr", "from": "a", "to": "b", "rate": "100Mbps"}],
        }
    )
    with pytest.raises(lfnlab.SimulationError, match="not a generator bench: it has 0 switches"):
        run_bench(d)


def test_a_sweep_backend_runs_bench_cases_as_local_threads_do(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`reproduce --dask` sends 05.E5.2's bench grid to the sweep's workers
    (sweep.task.run_resolved_bench); what comes back is what the local bench loop gives, and
    a run that fails names its label."""
    from lfnlab.reproduce.runner import RunContext
    from lfnlab.sweep.execute import LocalPool

    builds = {
        f"tc{tc}": (lambda tc=tc: bench_scenario(f"b{tc}", config="oq_dt", tc1_mbps=tc, tc2_mbps=500, duration_s=0.2, seed=3, bin_s=0.01))
        for tc in (700, 300)
    }

    def keep(label: str, r):  # type: ignore[no-untyped-def]
        return r.summary["flows"], r.summary["conservation"], r.flows

    here = RunContext(out=tmp_path / "a", workers=2, quick=True).run_bench(builds, keep, "analysis")
    remote = RunContext(out=tmp_path / "b", workers=2, quick=True, backend=LocalPool(2))
    there = remote.run_bench(builds, keep, "analysis")
    assert list(here) == list(there) == ["tc300", "tc700"]
    for label in here:
        assert here[label][:2] == there[label][:2]
        assert here[label][2].equals(there[label][2])
    assert remote.tally.done_now == 2
    not_a_bench = lfnlab.Scenario.from_dict(
        {
            "sim": {"duration": "10ms"},
            "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
            "link": [{"from": "a", "to": "b", "rate": "1Gbps", "delay": "1ms"}],
            "flow": [{"name": "f", "kind": "udp_cbr", "from": "a", "to": "b", "rate": "100Mbps"}],
        }
    )
    failing = RunContext(out=tmp_path / "c", workers=1, quick=True, backend=LocalPool(1))
    with pytest.raises(lfnlab.SimulationError, match="bench run odd on 1 local worker: .*not a generator bench"):
        failing.run_bench({"odd": lambda: not_a_bench, **builds}, keep, "analysis")


@pytest.mark.parametrize("backend", [False, True], ids=["threads", "sweep-backend"])
def test_resumed_bench_runs_come_from_the_journal_and_a_torn_tail_is_cut(tmp_path, backend: bool) -> None:  # type: ignore[no-untyped-def]
    """Bench runs have no result directory; `reproduce --resume` reuses them from
    runs/bench.journal (reproduce.bench_journal) when scenario, engine and analysis digest
    all match, whichever executor ran them. A record cut short by a killed process is not
    read, and the next append replaces it."""
    from lfnlab.reproduce.bench_journal import JOURNAL
    from lfnlab.reproduce.runner import RunContext
    from lfnlab.sweep.execute import LocalPool

    def builds_for(rates: tuple[int, ...]):  # type: ignore[no-untyped-def]
        return {
            f"tc{tc}": (lambda tc=tc: bench_scenario(f"b{tc}", config="oq_dt", tc1_mbps=tc, tc2_mbps=500, duration_s=0.2, seed=3, bin_s=0.01))
            for tc in rates
        }

    calls: list[str] = []

    def keep(label: str, r):  # type: ignore[no-untyped-def]
        calls.append(label)
        return {"delivered": [f["delivered"] for f in r.summary["flows"]], "flows": r.flows}

    def context(resume: bool) -> RunContext:
        return RunContext(out=tmp_path, workers=2, quick=True, resume=resume, backend=LocalPool(2) if backend else None)

    first = context(False).run_bench(builds_for((700, 300)), keep, "analysis-1")
    assert sorted(calls) == ["tc300", "tc700"]
    journal = tmp_path / "runs" / JOURNAL
    whole = journal.read_bytes()
    journal.write_bytes(whole + whole[: len(whole) // 3])  # a torn third record
    calls.clear()
    again = context(True)
    second = again.run_bench(builds_for((700, 300, 900)), keep, "analysis-1")
    assert calls == ["tc900"], "only the run missing from the journal ran"
    assert (again.tally.reused, again.tally.done_now) == (2, 1)
    for label in first:
        assert second[label]["delivered"] == first[label]["delivered"]
        assert second[label]["flows"].equals(first[label]["flows"])
    assert journal.read_bytes().startswith(whole) and len(journal.read_bytes()) > len(whole), "the torn tail was replaced"
    # Every record is whole again: a third pass reuses all three.
    calls.clear()
    context(True).run_bench(builds_for((700, 300, 900)), keep, "analysis-1")
    assert calls == []
    # Another analysis digest (the keep code changed) or a changed scenario: run again.
    context(True).run_bench(builds_for((700,)), keep, "analysis-2")
    assert calls == ["tc700"]
    # Without --resume the journal is not read.
    calls.clear()
    context(False).run_bench(builds_for((300,)), keep, "analysis-1")
    assert calls == ["tc300"]
