"""The command line's exit status and messages (spec 00 §2.3): 0 ok, 2 invalid input
with `error: FILE: KEY.PATH: message`, 1 anything else. These need no engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import run_cli, write_variant


def test_validate_ok(dumbbell_copy: Path) -> None:
    p = run_cli("validate", dumbbell_copy)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok: 3 nodes, 2 links, 1 flow"


def test_validate_bad_unit_exits_2_naming_file_and_key_path(tmp_path: Path) -> None:
    bad = write_variant(tmp_path, "bad_unit.toml", 'limit = "128KiB"', 'limit = "128 lightyears"')
    p = run_cli("validate", bad)
    assert p.returncode == 2
    first = p.stderr.splitlines()[0]
    assert first.startswith(f"error: {bad}: link[1].queue.limit: "), p.stderr
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr


def test_validate_unknown_key_exits_2(tmp_path: Path) -> None:
    bad = write_variant(tmp_path, "typo.toml", "seed = 1", "seed = 1\nsede = 2")
    p = run_cli("validate", bad)
    assert p.returncode == 2
    assert p.stderr.startswith(f"error: {bad}: sim"), p.stderr
    assert "sede" in p.stderr


def test_validate_not_toml_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "garbage.toml"
    bad.write_bytes(b"[sim\n\xff\xfe = = =\n")
    p = run_cli("validate", bad)
    assert p.returncode == 2
    assert p.stderr.startswith(f"error: {bad}"), p.stderr


def test_validate_missing_file_exits_2(tmp_path: Path) -> None:
    p = run_cli("validate", tmp_path / "absent.toml")
    assert p.returncode == 2
    assert "absent.toml" in p.stderr


def test_bad_set_exits_2(dumbbell_copy: Path) -> None:
    p = run_cli("validate", dumbbell_copy, "--set", "link[1].queue.limit=lots")
    assert p.returncode == 2
    assert "link[1].queue.limit" in p.stderr


def test_usage_errors_exit_2(dumbbell_copy: Path) -> None:
    for args in (["run", "--bogus"], ["run", dumbbell_copy, "--bogus"], ["frobnicate"], ["run"]):
        p = run_cli(*args)
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        assert p.stderr.startswith("error: "), (args, p.stderr)
    # No verb at all: the help, on stderr, still as a usage error.
    p = run_cli()
    assert p.returncode == 2
    assert "Usage: lfnlab" in p.stderr


def test_help_exits_0_and_lists_the_verbs() -> None:
    p = run_cli("--help")
    assert p.returncode == 0
    for verb in ("run", "validate", "reproduce", "sweep", "bench", "plot"):
        assert f"  {verb}" in p.stdout, verb


def test_a_missing_plan_is_invalid_input() -> None:
    p = run_cli("sweep", "no-such-plan.toml")
    assert p.returncode == 2
    assert "no-such-plan.toml" in p.stderr and "Traceback" not in p.stderr


def test_bench_list_and_unknown_scenario() -> None:
    p = run_cli("bench", "--list")
    assert p.returncode == 0
    assert "1g-200ms-16MiB" in p.stdout and "10g-500ms-16MiB" in p.stdout
    p = run_cli("bench", "--scenario", "nope")
    assert p.returncode == 2
    assert "--scenario" in p.stderr


def test_run_refuses_to_replace_a_foreign_directory(dumbbell_copy: Path, tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("keep")
    p = run_cli("run", dumbbell_copy, "--out", precious)
    assert p.returncode == 2
    assert "--out" in p.stderr
    assert (precious / "thesis.tex").read_text() == "keep"


def test_plot_of_a_missing_result_exits_2(tmp_path: Path) -> None:
    p = run_cli("plot", tmp_path / "nothing")
    assert p.returncode == 2
    assert "not an lfnlab result directory" in p.stderr
    assert run_cli("plot").returncode == 2
    assert run_cli("plot", "--help").returncode == 0


def test_a_malformed_scheduler_address_is_bad_input_for_sweep_and_reproduce() -> None:
    """Issue 40: `--scheduler notaurl` exited 1 after trying to connect; it is a usage
    error (exit 2) naming the option, and well-formed addresses pass."""
    from lfnlab.command_args import UsageError, scheduler_address

    for good in ("tcp://127.0.0.1:8786", "127.0.0.1:8786", "tls://sched.example.org:8786", "tcp://[::1]:8786"):
        assert scheduler_address("--scheduler", good) == good
    for bad in ("notaurl", "tcp://host", "tcp://host:0", "http://host:8786", "tcp://:8786"):
        with pytest.raises(UsageError, match="expected a Dask scheduler address such as tcp://HOST:PORT"):
            scheduler_address("--scheduler", bad)
    p = run_cli("reproduce", "06.V6", "--quick", "--scheduler", "notaurl")
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("error: <arguments>: --scheduler: expected a Dask scheduler address"), p.stderr


UDP_ONLY = """
[sim]
duration = "200ms"
[[node]]
name = "a"
kind = "host"
[[node]]
name = "b"
kind = "host"
[[link]]
from = "a"
to = "b"
rate = "1Gbps"
delay = "1ms"
[[flow]]
name = "u"
kind = "udp_cbr"
from = "a"
to = "b"
rate = "100Mbps"
"""


def test_run_and_validate_lines_count_in_words(tmp_path: Path) -> None:
    """Issue 40: "1 flows" and a UDP flow's "0 retransmits, 0 timeouts" were noise."""
    scenario = tmp_path / "udp.toml"
    scenario.write_text(UDP_ONLY, encoding="utf-8")
    p = run_cli("validate", scenario)
    assert p.returncode == 0 and p.stdout.strip() == "ok: 2 nodes, 1 link, 1 flow", p.stdout
    p = run_cli("run", scenario, "--out", tmp_path / "out")
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if x.startswith("  u: "))
    assert line.startswith("  u: goodput ") and line.endswith(" Mbit/s (UDP)"), line
