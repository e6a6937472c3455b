"""Sweeps on the local process pool: failed runs, resuming, the store and index, the
Python API (a DataFrame, run tables read lazily) and progress output."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from support import lfnlab_command, run_cli
from sweep_support import EXAMPLES, comparable_files, json_lines, run_dirs, stamp, write_plan

import lfnlab
from lfnlab.sweep import load_run, read_index
from lfnlab.sweep.frame import RunResult, SweepIndex
from lfnlab.sweep.progress import JsonProgress, NoProgress, Tally, TerminalProgress, make_progress

pytestmark = pytest.mark.engine

RATES = {"key": "link[1].rate", "values": ["200Mbps", "fast-ish", "400Mbps"]}
LIMITS = {"key": "link[1].queue.limit", "values": ["64KiB", "256KiB"]}


def test_a_failing_run_is_recorded_and_only_it_runs_again(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "rates.toml", [RATES])
    out = tmp_path / "out"
    first = run_cli("sweep", plan, "--out", out, "--workers", "2")
    assert first.returncode == 1, first.stderr
    assert "Traceback" not in first.stderr
    index = read_index(out)
    assert list(index["link[1].rate"]) == ["200Mbps", "fast-ish", "400Mbps"]
    assert list(index["status"]) == ["done", "failed", "done"]
    bad = index.iloc[1]
    # The loader's InvalidInputError text, naming the key path and the value.
    assert "link[1].rate" in bad["error"] and '"fast-ish"' in bad["error"] and "expected a rate" in bad["error"]
    assert pd.isna(index.iloc[0]["error"]) and index.iloc[0]["goodput_bps"] > 0 and pd.isna(bad["goodput_bps"])
    assert f"error: run {bad['run_id']} (link[1].rate=fast-ish, seed 1): " in first.stderr
    assert f"error: {plan}: 1 failed of 3 runs" in first.stderr
    assert "2/3 runs done (2 now, 0 reused), 1 failed" in first.stdout
    # The failed run's directory holds only its record.
    assert sorted(os.listdir(out / "runs" / bad["run_id"])) == ["sweep.json"]
    record = json.loads((out / "runs" / bad["run_id"] / "sweep.json").read_text(encoding="utf-8"))
    assert record["status"] == "failed" and record["error"] == bad["error"] and record["params"] == {"link[1].rate": "fast-ish"}

    done_ids = [r for r, s in zip(index["run_id"], index["status"]) if s == "done"]
    before = {r: stamp(out / "runs" / r) for r in done_ids}
    failed_before = stamp(out / "runs" / bad["run_id"])
    second = run_cli("sweep", plan, "--out", out, "--progress", "json")
    assert second.returncode == 1, second.stderr
    lines = json_lines(second.stderr)
    assert lines[0]["reused"] == 2 and lines[0]["remaining"] == 1 and lines[0]["done"] == 2
    assert lines[-1] == {**lines[-1], "done": 2, "failed": 1, "remaining": 0, "total": 3, "reused": 2, "lost": 0}
    assert {r: stamp(out / "runs" / r) for r in done_ids} == before, "a done run was rewritten"
    assert stamp(out / "runs" / bad["run_id"]) != failed_before, "the failed run was not redone"
    again = read_index(out)
    pd.testing.assert_frame_equal(again.drop(columns="wall_seconds"), index.drop(columns="wall_seconds"))
    assert run_dirs(out) == sorted(index["run_id"])


def test_resume_runs_only_what_is_missing_or_failed(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "resume.toml", [LIMITS, {"key": "flow[0].cc", "values": ["newreno", "cubic"]}])
    out = tmp_path / "out"
    index = lfnlab.sweep(plan, out, workers=2, progress="none")
    assert isinstance(index, pd.DataFrame) and isinstance(index, SweepIndex)
    assert index.attrs["sweep"] == {"total": 4, "done": 4, "failed": 0, "lost": 0, "reused": 0, "ran": 4}
    ids = list(index["run_id"])
    stamps = {r: stamp(out / "runs" / r) for r in ids}

    # One run's directory deleted, another's record marked failed: those two run again.
    shutil.rmtree(out / "runs" / ids[1])
    record_path = out / "runs" / ids[2] / "sweep.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record_path.write_text(json.dumps({**record, "status": "failed", "error": "marked"}), encoding="utf-8")
    # Debris of an interrupted sweep is cleared.
    (out / "runs" / f".tmp-{ids[0]}-deadbeef").mkdir()

    again = lfnlab.sweep(plan, out, workers=2, progress="none")
    assert again.attrs["sweep"] == {"total": 4, "done": 4, "failed": 0, "lost": 0, "reused": 2, "ran": 2}
    assert {r: stamp(out / "runs" / r) for r in (ids[0], ids[3])} == {r: stamps[r] for r in (ids[0], ids[3])}
    assert stamp(out / "runs" / ids[2]) != stamps[ids[2]]
    pd.testing.assert_frame_equal(again.drop(columns="wall_seconds"), index.drop(columns="wall_seconds"))
    assert run_dirs(out) == sorted(ids)

    # Nothing left to do: nothing runs, and the index is unchanged.
    third = lfnlab.sweep(plan, out, workers=2, progress="none")
    assert third.attrs["sweep"]["ran"] == 0
    pd.testing.assert_frame_equal(third, again)

    # A plan grown by one value reuses every run whose parameters did not change.
    grown = write_plan(tmp_path / "resume.toml", [dict(LIMITS, values=["64KiB", "256KiB", "1MiB"]), {"key": "flow[0].cc", "values": ["newreno", "cubic"]}])
    fourth = lfnlab.sweep(grown, out, workers=2, progress="none")
    assert fourth.attrs["sweep"] == {"total": 6, "done": 6, "failed": 0, "lost": 0, "reused": 4, "ran": 2}
    assert set(ids) < set(fourth["run_id"])


def test_the_index_is_a_data_frame_and_run_tables_load_lazily(tmp_path: Path) -> None:
    index = lfnlab.sweep(EXAMPLES / "sweep-buffers.toml", tmp_path / "buffers", workers=2, progress="none")
    assert len(index) == 6 and set(index["status"]) == {"done"}
    lead = ["run_id", "status", "error", "repetition", "seed", "link[1].queue.limit", "flow[0].cc", "wall_seconds"]
    assert list(index.columns[: len(lead)]) == lead
    for column in ("goodput_bps", "bytes_delivered", "retransmitted_segments", "timeouts", "queue_drops", "flow.bulk.goodput_bps", "queue.wan->rcv.dropped"):
        assert column in index.columns
    assert index["queue.wan->rcv.dropped"].dtype.kind == "i" and index["goodput_bps"].dtype.kind == "f"
    # The bottleneck is the only queue that drops: the total is its column, and the
    # small buffers of the plan overflow.
    newreno = index[index["flow[0].cc"] == "newreno"]
    assert (index["queue_drops"] == index["queue.wan->rcv.dropped"]).all()
    assert (newreno["queue_drops"] > 0).all()

    run = newreno.result(newreno["run_id"].iloc[0])  # a filtered frame keeps its directory
    assert isinstance(run, RunResult) and run.loaded_tables == ()
    assert run.summary["flows"][0]["name"] == "bulk"
    assert run.loaded_tables == ()
    tcp = run.tcp
    assert run.loaded_tables == ("tcp",) and len(tcp) > 0 and "cwnd" in tcp.columns
    assert run.tcp is tcp
    full = run.load()
    pd.testing.assert_frame_equal(full.tcp, tcp)
    assert run.record["params"] == {"link[1].queue.limit": "32KiB", "flow[0].cc": "newreno"}
    assert load_run(tmp_path / "buffers", run.run_id).summary == run.summary
    with pytest.raises(KeyError):
        index.result("no-such-run")
    # The same index can be read back later.
    pd.testing.assert_frame_equal(read_index(tmp_path / "buffers"), index)
    assert (tmp_path / "buffers" / "plan.toml").read_bytes() == (EXAMPLES / "sweep-buffers.toml").read_bytes()
    assert (tmp_path / "buffers" / "index.csv").read_text(encoding="utf-8").startswith('"run_id","status","error"')


def test_results_do_not_depend_on_the_worker_count(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "w.toml", [LIMITS], repetitions=2, sets={"link[1].delay": "5ms", "link[1].loss": {"kind": "bernoulli", "p": 0.001}})
    one = lfnlab.sweep(plan, tmp_path / "one", workers=1, progress="none")
    two = lfnlab.sweep(plan, tmp_path / "two", workers=2, progress="none")
    pd.testing.assert_frame_equal(one.drop(columns="wall_seconds"), two.drop(columns="wall_seconds"))
    assert one["retransmitted_segments"].iloc[0] != one["retransmitted_segments"].iloc[1], "the seed changes a lossy run"
    for run_id in one["run_id"]:
        assert comparable_files(tmp_path / "one" / "runs" / run_id) == comparable_files(tmp_path / "two" / "runs" / run_id)


def test_the_store_refuses_a_foreign_directory_and_a_second_writer(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "p.toml", [LIMITS])
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(lfnlab.InvalidInputError, match="not the output of `lfnlab sweep`"):
        lfnlab.sweep(plan, foreign, progress="none")
    p = run_cli("sweep", plan, "--out", foreign)
    assert p.returncode == 2 and "refusing to write into it" in p.stderr
    assert sorted(os.listdir(foreign)) == ["notes.txt"]

    import fcntl

    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    with open(out / ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(lfnlab.OutputError, match="another sweep is writing"):
            lfnlab.sweep(plan, out, progress="none")


# Progress ------------------------------------------------------------------------


def test_progress_json_lines_and_quiet_and_no_escape_codes(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "p.toml", [LIMITS], repetitions=2)
    p = run_cli("sweep", plan, "--out", tmp_path / "a", "--workers", "2", "--progress", "json")
    assert p.returncode == 0, p.stderr
    lines = json_lines(p.stderr)
    assert len(lines) == len(p.stderr.splitlines()), "stderr holds only JSON lines"
    assert {line["kind"] for line in lines} == {"sweep"}
    assert set(lines[0]) == {"kind", "done", "failed", "remaining", "total", "reused", "lost", "elapsed_s", "eta_s"}
    assert lines[0]["eta_s"] is None and lines[0]["remaining"] == 4
    assert [line["done"] for line in lines] == sorted(line["done"] for line in lines)
    assert all(line["done"] + line["failed"] + line["lost"] + line["remaining"] == line["total"] == 4 for line in lines)
    assert lines[-1]["done"] == 4 and lines[-1]["eta_s"] == 0.0

    # Not a terminal, no --progress: a plain start and end line, no escape codes.
    p = run_cli("sweep", plan, "--out", tmp_path / "b", "--workers", "1")
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout + p.stderr and "\r" not in p.stdout + p.stderr
    assert p.stderr == "" and p.stdout.splitlines()[-1].startswith("4/4 runs done")

    # --quiet: nothing at all when every run is done; only errors otherwise.
    p = run_cli("sweep", plan, "--out", tmp_path / "b", "--quiet")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    failing = write_plan(tmp_path / "f.toml", [RATES])
    p = run_cli("sweep", failing, "--out", tmp_path / "c", "--quiet")
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr and all(line.startswith("error: ") for line in p.stderr.splitlines()), p.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_terminal_gets_one_line_rewritten_in_place(tmp_path: Path) -> None:
    import pty

    plan = write_plan(tmp_path / "p.toml", [LIMITS])
    master, slave = pty.openpty()
    try:
        p = subprocess.run(
            [*lfnlab_command(), "sweep", str(plan), "--out", str(tmp_path / "out"), "--workers", "1"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
            timeout=120,
        )
        os.close(slave)
        slave = -1
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
        if slave >= 0:
            os.close(slave)
    shown = b"".join(chunks).decode("utf-8")
    assert p.returncode == 0, shown
    assert shown.startswith("\r\x1b[2Ksweep p: 0/2 done, 0 failed, 2 remaining"), repr(shown)
    assert "\r\x1b[2Ksweep p: 2/2 done, 0 failed, 0 remaining" in shown and shown.endswith("\r\n")  # the pty maps \n to \r\n
    assert "\x1b" not in p.stdout.decode("utf-8")


class _FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_reporters() -> None:
    now = [100.0]
    tally = Tally(total=10, reused=2, clock=lambda: now[0])
    assert tally.eta_s() is None and tally.remaining == 8
    now[0] += 4.0
    tally.done_now, tally.failed = 3, 1  # 4 runs in 4 s, 4 left
    assert (tally.done, tally.remaining, tally.eta_s()) == (5, 4, 4.0)
    assert tally.as_json() == {"kind": "sweep", "done": 5, "failed": 1, "remaining": 4, "total": 10, "reused": 2, "lost": 0, "elapsed_s": 4.0, "eta_s": 4.0}

    terminal = _FakeTerminal()
    reporter = make_progress("auto", stream=terminal, name="demo")
    assert isinstance(reporter, TerminalProgress)
    reporter.start(tally)
    reporter.update(tally)  # within the redraw interval: not drawn
    reporter.finish(tally)
    text = terminal.getvalue()
    assert text.count("\r\x1b[2K") == 2 and text.endswith("\n") and text.count("\n") == 1
    assert "sweep demo: 5/10 done, 1 failed, 4 remaining  0:04 elapsed, ETA 0:04" in text

    assert isinstance(make_progress("auto", quiet=True, stream=_FakeTerminal()), NoProgress)
    assert isinstance(make_progress("auto", stream=io.StringIO()), NoProgress)
    assert isinstance(make_progress("none", stream=_FakeTerminal()), NoProgress)
    assert isinstance(make_progress("json", quiet=True, stream=io.StringIO()), JsonProgress)


def test_result_files_round_trip_and_a_name_outside_the_run_is_refused(tmp_path: Path) -> None:
    """The writer both the sweep store and `reproduce` use for a worker's files (sweep/task.py
    write_tree, the inverse of _read_tree) keeps the tree and refuses names that leave it."""
    from lfnlab.errors import OutputError
    from lfnlab.reproduce.runner import _place
    from lfnlab.sweep.task import _read_tree, write_tree

    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "summary.json").write_bytes(b"{}\n")
    (src / "sub" / "trace.arrow").write_bytes(bytes(range(256)))
    copy = tmp_path / "copy"
    copy.mkdir()
    write_tree(copy, _read_tree(src), "r1")
    assert _read_tree(copy) == _read_tree(src)
    for name in ("/tmp/evil", "../evil", "sub/../../evil", ""):
        target = tmp_path / "runs" / "r2"
        target.parent.mkdir(exist_ok=True)
        with pytest.raises(OutputError, match="refusing the result file name"):
            _place(target, None, {"summary.json": b"{}", name: b"x"})
        assert not target.exists()
        assert sorted(p.name for p in target.parent.iterdir()) == []  # the staging directory is gone too
    assert not (tmp_path / "evil").exists()


def test_the_python_sweep_calls_a_progress_callable(tmp_path: Path) -> None:
    """Issue 40: `lfnlab.sweep(..., progress=f)`: f gets the JSON line's fields at the
    start, after each run and at the end."""
    plan = write_plan(tmp_path / "limits.toml", [LIMITS])
    seen: list[dict[str, object]] = []
    index = lfnlab.sweep(plan, tmp_path / "out", workers=1, progress=seen.append)
    assert len(index) == 2
    # start, one update per run, finish
    assert [p["done"] for p in seen] == [0, 1, 2, 2], seen
    assert {p["kind"] for p in seen} == {"sweep"} and seen[-1]["remaining"] == 0 and seen[-1]["total"] == 2
    with pytest.raises(lfnlab.errors.InvalidInputError, match="or a callable"):
        lfnlab.sweep(plan, tmp_path / "out", progress="loud")
