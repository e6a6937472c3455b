"""Sweep plans (lfnlab.sweep.plan): the format, what is refused before anything runs
(InvalidInputError naming the plan file and key path; CLI exit 2, no traceback),
grid expansion and content-derived run ids. Nothing here runs the simulator."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from support import DUMBBELL_2S, run_cli
from sweep_support import EXAMPLES, write_plan

import lfnlab
from lfnlab import toml_text
from lfnlab.sweep.plan import MAX_RUNS, load_plan

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BASE = DUMBBELL_2S.as_posix()
AXES = [
    {"key": "link[1].queue.limit", "values": ["64KiB", "128KiB"]},
    {"key": "flow[0].cc", "values": ["newreno", "cubic", "bbr"]},
]


def plan_text(body: str, scenario: bool = True) -> str:
    head = f'[sweep]\nscenario = "{BASE}"\n' if scenario else "[sweep]\n"
    return head + body


# (case, plan text, key path named by the error, fragment of the message)
MALFORMED: list[tuple[str, str, str, str]] = [
    ("unknown sweep key", plan_text('bogus = 1\n[[axis]]\nkey = "flow[0].cc"\nvalues = ["cubic"]\n'), "sweep.bogus", 'unknown key "bogus"'),
    ("unknown top-level key", plan_text('[[axes]]\nkey = "flow[0].cc"\n'), "axes", 'unknown key "axes"'),
    ("repetitions of the wrong type", plan_text('repetitions = "2"\n'), "sweep.repetitions", "expected an integer"),
    ("repetitions zero", plan_text("repetitions = 0\n"), "sweep.repetitions", "from 1 to"),
    ("seed negative", plan_text("seed = -1\n"), "sweep.seed", "from 0 to"),
    ("missing base", plan_text('name = "x"\n', scenario=False), "sweep.scenario", "missing the base scenario"),
    ("missing [sweep]", '[[axis]]\nkey = "flow[0].cc"\nvalues = ["cubic"]\n', "sweep", "missing the [sweep] table"),
    ("base file missing", '[sweep]\nscenario = "no-such.toml"\n', "sweep.scenario", "is not a file"),
    ("scenario and [base]", plan_text("[base.sim]\nduration = \"1s\"\n"), "base", "not both"),
    ("bad name", plan_text('name = "my sweep"\n'), "sweep.name", "directory name"),
    ("set not a table", plan_text('set = "sim.duration=1s"\n'), "sweep.set", "expected a table"),
    ("bad set value", plan_text('[sweep.set]\n"sim.duration" = "fast"\n'), 'sweep.set."sim.duration"', "fast"),
    ("bad set key", plan_text('[sweep.set]\n"link[1].queue.limitt" = "1MiB"\n'), 'sweep.set."link[1].queue.limitt"', 'unknown key "limitt"'),
    ("set key syntax", plan_text('[sweep.set]\n"link[1]..rate" = "1Gbps"\n'), 'sweep.set."link[1]..rate"', "malformed key path"),
    ("axis is a table", plan_text('[axis]\nkey = "flow[0].cc"\n'), "axis", "array of tables"),
    ("axis without key", plan_text('[[axis]]\nvalues = ["cubic"]\n'), "axis[0]", 'missing "key"'),
    ("axis key syntax", plan_text('[[axis]]\nkey = "link[1]..rate"\nvalues = ["1Gbps"]\n'), "axis[0].key", "malformed key path"),
    (
        "axis key not in the scenario",
        plan_text('[[axis]]\nkey = "flow[0].cc"\nvalues = ["cubic"]\n[[axis]]\nkey = "link[1].queue.limitt"\nvalues = ["64KiB", "1MiB"]\n'),
        "axis[1].key",
        'unknown key "limitt"',
    ),
    ("axis index out of range", plan_text('[[axis]]\nkey = "link[7].rate"\nvalues = ["1Gbps"]\n'), "axis[0].key", "out of range"),
    ("axis on sim.seed", plan_text('[[axis]]\nkey = "sim.seed"\nvalues = [1, 2]\n'), "axis[0].key", "sweep.repetitions"),
    ("empty values", plan_text('[[axis]]\nkey = "flow[0].cc"\nvalues = ["cubic"]\n[[axis]]\nkey = "link[1].rate"\nvalues = []\n'), "axis[1].values", "must not be empty"),
    ("values not a list", plan_text('[[axis]]\nkey = "link[1].rate"\nvalues = "1Gbps"\n'), "axis[0].values", "expected an array"),
    ("values and range", plan_text('[[axis]]\nkey = "link[1].rate"\nvalues = ["1Gbps"]\nrange = { start = 1, stop = 2, step = 1 }\n'), "axis[0]", "exactly one"),
    ("duplicate value", plan_text('[[axis]]\nkey = "link[1].rate"\nvalues = ["1Gbps", "2Gbps", "1Gbps"]\n'), "axis[0].values[2]", "duplicate of values[0]"),
    ("date-time value", plan_text('[[axis]]\nkey = "link[1].rate"\nvalues = [1979-05-27]\n'), "axis[0].values[0]", "date-times"),
    ("range step zero", plan_text('[[axis]]\nkey = "link[1].rate"\nrange = { start = 1, stop = 2, step = 0, unit = "Gbps" }\n'), "axis[0].range.step", "must be positive"),
    ("range backwards", plan_text('[[axis]]\nkey = "link[1].rate"\nrange = { start = 5, stop = 2, step = 1, unit = "Gbps" }\n'), "axis[0].range.stop", "at least start"),
    ("range without stop", plan_text('[[axis]]\nkey = "link[1].rate"\nrange = { start = 5, step = 1 }\n'), "axis[0].range", 'missing "stop"'),
    ("range of strings", plan_text('[[axis]]\nkey = "link[1].rate"\nrange = { start = "1Gbps", stop = 2, step = 1 }\n'), "axis[0].range.start", "expected a number"),
    ("range too long", plan_text('[[axis]]\nkey = "link[1].rate"\nrange = { start = 1, stop = 1000000, step = 1, unit = "Mbps" }\n'), "axis[0].range", "at most"),
    # A fuzz input: a count past Decimal's 28 digits made `//` raise DivisionImpossible.
    ("range beyond decimal precision", plan_text('[[axis]]\nkey = "link[1].rate"\nrange = { start = 1, stop = 4e300, step = 1, unit = "Mbps" }\n'), "axis[0].range", "more than 10^28 values"),
    ("bad unit", plan_text('[[axis]]\nkey = "link[1].rate"\nrange = { start = 1, stop = 2, step = 1, unit = "M bps" }\n'), "axis[0].range.unit", "expected a unit"),
    (
        "overlapping keys",
        plan_text('[sweep.set]\n"link[1].queue.limit" = "1MiB"\n[[axis]]\nkey = "link[1].queue"\nvalues = [{ kind = "droptail", limit = "64KiB" }]\n'),
        "axis[0].key",
        "overlaps link[1].queue.limit",
    ),
    ("same key twice", plan_text('[[axis]]\nkey = "flow[0].cc"\nvalues = ["cubic"]\n[[axis]]\nkey = "flow[0].cc"\nvalues = ["bbr"]\n'), "axis[1].key", "overlaps"),
    ("too many runs", plan_text(f"repetitions = {MAX_RUNS}\n" + '[[axis]]\nkey = "flow[0].cc"\nvalues = ["cubic", "bbr"]\n'), "axis", "at most"),
    ("inline base invalid", '[sweep]\n[base.sim]\nduration = "forever"\n', "base.sim.duration", "forever"),
    ("TOML syntax", "[sweep\nscenario = 1\n", "", "TOML syntax error"),
]


@pytest.mark.parametrize("case,text,key_path,fragment", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_plan_names_the_plan_file_and_key_path(tmp_path: Path, case: str, text: str, key_path: str, fragment: str) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(text, encoding="utf-8")
    with pytest.raises(lfnlab.InvalidInputError) as caught:
        load_plan(plan)
    e = caught.value
    assert (e.file, e.key_path) == (os.fspath(plan), key_path), str(e)
    assert fragment in e.message, str(e)


@pytest.mark.parametrize("case", ["empty values", "axis key not in the scenario", "repetitions of the wrong type"])
def test_the_command_refuses_a_malformed_plan_with_status_2_and_no_traceback(tmp_path: Path, case: str) -> None:
    _, text, key_path, fragment = next(m for m in MALFORMED if m[0] == case)
    plan = tmp_path / "plan.toml"
    plan.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    p = run_cli("sweep", plan, "--out", out, "--progress", "json")
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"error: {plan}: {key_path}: "), p.stderr
    assert fragment in p.stderr and "Traceback" not in p.stderr
    assert not out.exists(), "nothing is written for an invalid plan"


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", AXES)
    for args in (
        ["--workers", "0"],
        ["--workers", "two"],
        ["--dask", "remote"],
        ["--scheduler", "tcp://h:1", "--dask", "local"],
        ["--progress", "xml"],
        ["--scheduler", "notaurl"],
        ["--scheduler", "tcp://h:99999"],
        ["--scheduler", "http://h:8786"],
    ):
        p = run_cli("sweep", plan, "--out", tmp_path / "out", *args)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.startswith("error: <arguments>: ") and "Traceback" not in p.stderr, (args, p.stderr)
    p = run_cli("sweep", tmp_path / "missing.toml")
    assert p.returncode == 2 and "missing.toml: no such plan file" in p.stderr, p.stderr


def test_grid_order_seeds_and_parameters(tmp_path: Path) -> None:
    plan = load_plan(write_plan(tmp_path / "grid.toml", AXES, repetitions=2, seed=7))
    assert plan.name == "grid" and plan.total == 12 and plan.describe() == "2 × 3 points × 2 repetitions = 12 runs"
    points = plan.points()
    assert [p.position for p in points] == list(range(12))
    # The first axis varies slowest, repetitions fastest; repetition r runs with seed + r.
    assert [(dict(p.params)["link[1].queue.limit"], dict(p.params)["flow[0].cc"], p.seed) for p in points[:4]] == [
        ("64KiB", "newreno", 7),
        ("64KiB", "newreno", 8),
        ("64KiB", "cubic", 7),
        ("64KiB", "cubic", 8),
    ]
    assert points[0].sets == ('sim.duration="1s"', 'link[1].queue.limit="64KiB"', 'flow[0].cc="newreno"', "sim.seed=7")
    ids = [p.run_id for p in points]
    assert len(set(ids)) == 12
    assert all(re.match(r"^[A-Za-z0-9][A-Za-z0-9.+_-]*-[0-9a-f]{12}$", i) for i in ids), ids
    assert ids[0].startswith("newreno_64KiB_s7-")  # values in the order of their keys
    # Each run's scenario is the base with its overrides.
    s = plan.base.scenario(points[3].sets).to_dict()
    assert s["sim"]["seed"] == 8 and s["flow"][0]["cc"] == "cubic" and s["sim"]["duration"] == "1s"


def test_seed_defaults_to_the_scenarios(tmp_path: Path) -> None:
    plan = load_plan(write_plan(tmp_path / "p.toml", AXES[:1], repetitions=3))
    assert plan.seed == 1 and [p.seed for p in plan.points()[:3]] == [1, 2, 3]
    assert [p.repetition for p in plan.points()[:3]] == [0, 1, 2]


def test_run_ids_follow_content_not_position(tmp_path: Path) -> None:
    ids = {p.run_id for p in load_plan(write_plan(tmp_path / "a.toml", AXES)).points()}
    # Axes in the other order: the same runs.
    reordered = load_plan(write_plan(tmp_path / "b.toml", AXES[::-1])).points()
    assert {p.run_id for p in reordered} == ids
    # A value added: the old runs keep their ids.
    grown = [dict(AXES[0], values=["32KiB", "64KiB", "128KiB"]), AXES[1]]
    grown_ids = {p.run_id for p in load_plan(write_plan(tmp_path / "c.toml", grown)).points()}
    assert ids < grown_ids and len(grown_ids) == 9
    # Another fixed override or base scenario: other runs.
    other = {p.run_id for p in load_plan(write_plan(tmp_path / "d.toml", AXES, sets={"sim.duration": "2s"})).points()}
    assert not other & ids
    # The plan's name and file do not matter.
    renamed = {p.run_id for p in load_plan(write_plan(tmp_path / "e.toml", AXES, name="other")).points()}
    assert renamed == ids


def test_ranges_include_their_stop_and_keep_decimals_exact(tmp_path: Path) -> None:
    def values(spec: dict[str, Any], key: str = "link[1].rate") -> tuple[Any, ...]:
        return load_plan(write_plan(tmp_path / "r.toml", [{"key": key, "range": spec}])).axes[0].values

    assert values({"start": 100, "stop": 500, "step": 100, "unit": "Mbps"}) == ("100Mbps", "200Mbps", "300Mbps", "400Mbps", "500Mbps")
    assert values({"start": 0.1, "stop": 0.3, "step": 0.1, "unit": "Gbps"}) == ("0.1Gbps", "0.2Gbps", "0.3Gbps")
    assert values({"start": 1, "stop": 10, "step": 4, "unit": "Gbps"}) == ("1Gbps", "5Gbps", "9Gbps")
    assert values({"start": 100, "stop": 300, "step": 100}, key="node[0].txqueuelen") == (100, 200, 300)


def test_values_keep_their_toml_type(tmp_path: Path) -> None:
    plan = load_plan(
        write_plan(
            tmp_path / "t.toml",
            [
                {"key": "node[0].txqueuelen", "values": [100, 1000]},
                {"key": "link[1].queue", "values": [{"kind": "droptail", "limit": "1MiB"}]},
            ],
        )
    )
    p = plan.points()[0]
    assert p.params == (("node[0].txqueuelen", "100"), ("link[1].queue", '{ kind = "droptail", limit = "1MiB" }'))
    s = plan.base.scenario(p.sets).to_dict()
    assert s["node"][0]["txqueuelen"] == 100 and s["link"][1]["queue"]["limit"] == "1MiB"


def test_a_bad_value_is_not_a_plan_error(tmp_path: Path) -> None:
    # The key exists; one value is invalid: that run fails when it runs, the plan is fine.
    plan = load_plan(write_plan(tmp_path / "p.toml", [{"key": "link[1].rate", "values": ["200Mbps", "fast-ish"]}]))
    assert plan.total == 2
    with pytest.raises(lfnlab.InvalidInputError) as caught:
        plan.base.scenario(plan.points()[1].sets)
    assert caught.value.key_path == "link[1].rate" and "fast-ish" in caught.value.message


def test_a_key_absent_by_default_is_accepted_when_a_value_applies(tmp_path: Path) -> None:
    plan = load_plan(write_plan(tmp_path / "p.toml", [{"key": "flow[0].pacing.kind", "values": ["off", "gap_packets"]}]))
    assert plan.total == 2


def test_dict_plans_and_inline_bases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file_plan = load_plan(write_plan(tmp_path / "dumbbell_2s.toml", AXES, repetitions=2))
    base_doc = tomllib.loads(DUMBBELL_2S.read_text(encoding="utf-8"))
    monkeypatch.chdir(DUMBBELL_2S.parent)
    as_dict = {"sweep": {"scenario": Path(DUMBBELL_2S.name), "repetitions": 2, "set": {"sim.duration": "1s"}}, "axis": AXES}
    dict_plan = load_plan(as_dict)
    assert dict_plan.file == "<dict>" and dict_plan.name == "dumbbell_2s"
    assert [p.run_id for p in dict_plan.points()] == [p.run_id for p in file_plan.points()]
    assert tomllib.loads(dict_plan.text)["axis"] == AXES
    # An inline base takes its default sim.name from the plan file's stem: runs differ only by that.
    inline = tmp_path / "dumbbell_2s.toml"
    inline.write_text(toml_text.dumps({"sweep": {"repetitions": 2, "set": {"sim.duration": "1s"}}, "axis": AXES, "base": base_doc}), encoding="utf-8")
    assert [p.run_id for p in load_plan(inline).points()] == [p.run_id for p in file_plan.points()]


def test_the_example_plan_is_valid() -> None:
    plan = load_plan(EXAMPLES / "sweep-buffers.toml")
    assert plan.name == "sweep-buffers" and 2 <= plan.total <= 12


def test_toml_text_round_trips() -> None:
    doc = {
        "sweep": {"name": "n", "set": {"a.b": "5", "c[0]": 1.5, "d": True}},
        "axis": [{"key": "k", "values": ["x", 1, 2.5e-9, {"kind": "droptail"}, [1, 2]]}, {"key": "r", "range": {"start": 1, "stop": 2, "step": 1}}],
        "base": {"sim": {"duration": "1s"}, "node": [{"name": "a"}, {"name": "b", "nic": {"rate": "1Gbps"}}]},
    }
    assert tomllib.loads(toml_text.dumps(doc)) == doc
    assert toml_text.value_text("5") == '"5"' and toml_text.value_text(5) == "5"
