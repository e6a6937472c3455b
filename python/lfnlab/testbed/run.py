"""One testbed run, start to finish: check the scenario, build the lab, relay, run
iperf3 while sampling ``ss``, stop everything, write the result directory, and remove
everything the run created (:mod:`.registry`) however it ends.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Optional, Union

from ..errors import InvalidInputError, OutputError, SimulationError
from ..result import Result, load_result
from ..scenario import Scenario
from . import iperf, lab as lab_mod, relay as relay_mod, relay_trace, results, tables
from .orphans import reap_orphans
from .registry import Registry, guarded
from .sampler import Sample, Sampler
from .subset import Plan, check

__all__ = ["run_testbed", "default_out"]

#: Longest wait for the iperf3 server to finish after the client, s.
SERVER_WAIT_S = 15.0


def default_out(plan: Plan, repetition: int) -> Path:
    """``out/<sim.name>-testbed``, with ``-r<N>`` for a repetition other than 1."""
    return Path("out") / (f"{plan.name}-testbed" + (f"-r{repetition}" if repetition != 1 else ""))


def _wait(p: subprocess.Popen[bytes], what: str, timeout_s: float, registry: Registry) -> int:
    deadline = time.monotonic() + timeout_s
    while p.poll() is None:
        registry.raise_if_stopped()
        if time.monotonic() > deadline:
            raise SimulationError(f"{what} did not finish within {timeout_s:g} s")
        time.sleep(0.05)
    return p.returncode


def _measure(
    plan: Plan,
    registry: Registry,
    workdir: Path,
    repetition: int,
    say: Callable[[str], None],
    on_transfer: Callable[[], None],
) -> tuple[results.Measured, dict[str, relay_trace.Frames], list[Sample]]:
    lab = lab_mod.build(plan, registry)
    ab = plan.a_to_b
    say(f"lab {lab.prefix}-{{snd,emu,rcv}}: {ab.rate_bps / 1e6:g} Mbit/s, RTT {plan.base_rtt_ns / 1e6:g} ms, {ab.limit_bytes} B queue")
    relay = relay_mod.start(lab, plan, workdir, registry, seed=plan.seed + repetition - 1)
    server = iperf.start_server(lab, workdir, registry)
    sampler = Sampler(lab.snd, iperf.DATA_PORT)
    sampler.start()
    cpu_before = lab_mod.cpu_times()
    try:
        started = time.monotonic()
        client = iperf.start_client(lab, plan, workdir, registry)
        on_transfer()
        say(f"iperf3 -C {plan.kernel_cc} for {plan.duration_s} s ...")
        iperf.wait_client(client, plan, registry)
    finally:
        sampler.stop()
    cpu = lab_mod.cpu_share(cpu_before, lab_mod.cpu_times())
    if client.returncode != 0:
        iperf.read_json(workdir / "iperf3-client.json", "iperf3 client")  # raises with iperf3's own error
        raise SimulationError(f"iperf3 client exited with status {client.returncode}")
    result = iperf.client_result(workdir)
    _wait(server, "the iperf3 server", SERVER_WAIT_S, registry)
    server_doc = iperf.read_json(workdir / "iperf3-server.json", "iperf3 server")
    counters = lab_mod.tcp_counters(lab.snd)
    stats = relay.stop()
    registry.raise_if_stopped()
    say(f"transfer done in {time.monotonic() - started:.1f} s; reading the relay's trace")

    frames = relay_trace.read(relay.trace_path)
    first = relay_trace.first_data_arrival_ns(frames["a_to_b"])
    if first is None:
        raise SimulationError("no data frame reached the relay (iperf3 sent nothing?)")
    rtt = plan.base_rtt_ns
    window_end = first + round(result.duration_s * 1e9)
    # A drop shows in iperf3's retransmission count about one RTT later.
    drop_window = (first - rtt, window_end - rtt)
    in_window = [s for s in sampler.samples if first - rtt <= s.t_ns <= window_end]
    ccs = Counter(str(s.fields.get("cc")) for s in in_window)
    measured = results.Measured(
        repetition=repetition,
        wall_seconds=0.0,
        iperf=result,
        relay=stats,
        t0_ns=first - rtt,
        data_start_ns=first,
        window_end_ns=window_end,
        drops_in_window=relay_trace.drops_between(frames["a_to_b"], *drop_window, "tail"),
        losses_in_window=relay_trace.drops_between(frames["a_to_b"], *drop_window, "link_loss"),
        drop_window_ns=drop_window,
        tcp_counters=counters,
        cc_in_use=ccs.most_common(1)[0][0] if ccs else None,
        samples=len(in_window),
        sampler_errors=sampler.errors,
        sysctls=lab_mod.host_sysctls(plan),
        namespaces=registry.namespaces,
        commands={"relay": relay.command, "iperf3_client": iperf.client_command(lab, plan)},
        server=server_doc,
        cpu=cpu,
    )
    return measured, frames, sampler.samples


def _tables(plan: Plan, m: results.Measured, frames: dict[str, relay_trace.Frames], samples: list[Sample]) -> dict[str, Any]:
    flows: dict[str, list[Any]] = {"monitor": [], "flow": [], "t": [], "bytes": [], "packets": []}
    queues: dict[str, list[Any]] = {k: [] for k in ("queue", "t", "bytes", "packets", "max_bytes", "drops", "enqueued")}
    for mon in plan.monitors:
        f = frames[mon.direction]
        n = relay_trace.n_bins(m.t0_ns, m.window_end_ns, mon.bin_ns)
        t = [k * mon.bin_ns / 1e9 for k in range(n)]
        b, p = relay_trace.egress_bins(f, m.t0_ns, mon.bin_ns, n)
        seen = int(p.nonzero()[0][0]) if p.any() else n  # rows from the first frame on, as the simulator
        flows["monitor"] += [mon.link] * (n - seen)
        flows["flow"] += [plan.flow] * (n - seen)
        flows["t"] += t[seen:]
        flows["bytes"] += b[seen:].tolist()
        flows["packets"] += p[seen:].tolist()
        q = relay_trace.queue_bins(f, m.t0_ns, mon.bin_ns, n)
        queues["queue"] += [mon.link] * n
        queues["t"] += t
        for k in ("bytes", "packets", "max_bytes", "drops", "enqueued"):
            queues[k] += getattr(q, k).tolist()
    paced = plan.pacing == "internal" or plan.kernel_cc == "bbr"
    out = {name: tables.empty_table(name) for name in tables.COLUMNS}
    out["flows"] = tables.table("flows", flows, len(flows["t"]))
    out["queues"] = tables.table("queues", queues, len(queues["t"]))
    out["tcp"] = tables.tcp_table(samples, plan.flow, m.t0_ns, m.window_end_ns, paced)
    return out


def run_testbed(
    scenario: Union[Scenario, str, os.PathLike[str]],
    out: Optional[Union[str, os.PathLike[str]]] = None,
    repetition: int = 1,
    say: Callable[[str], None] = lambda _line: None,
    on_transfer: Callable[[], None] = lambda: None,
) -> Result:
    """Run ``scenario`` on the testbed and write its result directory (default
    ``out/<sim.name>-testbed``); return it as a :class:`~lfnlab.Result`.
    ``on_transfer`` is called when the iperf3 client has started (a schedule of runs
    uses it to start the next run's setup while this one transfers).

    Raises InvalidInputError (scenario outside the supported subset),
    TestbedUnavailableError (not root, no namespaces, a tool missing), OutputError,
    SimulationError (the relay or iperf3 failed) or Interrupted (SIGINT/SIGTERM); in
    every case the namespaces and processes of the run are gone when it returns.
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.from_file(scenario)
    if repetition < 1:
        raise InvalidInputError(f"expected a repetition number of 1 or more, got {repetition}", "<arguments>", "--repetition")
    plan = check(scenario)
    out_dir = Path(out) if out is not None else default_out(plan, repetition)
    reason = results.check_out_dir(out_dir)
    if reason is not None:
        raise OutputError(reason)
    lab_mod.check_host()
    for name in reap_orphans():
        say(f"removed namespace {name}, left by a killed run")
    wall0 = time.monotonic()
    registry = Registry()
    with guarded(registry):
        workdir = Path(tempfile.mkdtemp(prefix="lfnlab-testbed-"))
        registry.add_path(workdir)
        measured, frames, samples = _measure(plan, registry, workdir, repetition, say, on_transfer)
        built = _tables(plan, measured, frames, samples)
        measured.wall_seconds = time.monotonic() - wall0
        registry.raise_if_stopped()
        results.write_dir(out_dir, built, results.summary(plan, measured), plan.scenario_toml)
    return load_result(out_dir)
