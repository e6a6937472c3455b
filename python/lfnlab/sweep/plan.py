"""Sweep plans: parsed and checked into a :class:`Plan`, expanded into :class:`Point`\\ s.

A plan (TOML file or the same shape as nested dicts; docs/sweep.md)::

    [sweep]
    name = "buffers"                      # default: the plan file's stem
    scenario = "../examples/dumbbell.toml"  # relative to the plan file; or an inline [base]
    repetitions = 2                       # seeds per point (default 1)
    seed = 1                              # repetition r runs with sim.seed = seed + r
    [sweep.set]                           # overrides of every run
    "sim.duration" = "2s"
    [[axis]]
    key = "link[1].queue.limit"
    values = ["64KiB", "128KiB"]
    [[axis]]
    key = "link[1].rate"
    range = { start = 100, stop = 500, step = 100, unit = "Mbps" }   # stop included

What is checked before anything runs (errors name the plan file and the key path in
it, e.g. ``axis[1].values``): the plan's structure and types, the key-path syntax, that
keys do not overlap, that the base scenario with the fixed overrides is valid, and that
each axis key addresses the scenario (it exists in the resolved base, or at least one
of its values applies on its own). A value that makes one point's scenario invalid is
not a plan error: that run is recorded as failed with the loader's message, and the
others run (CHOICE, docs/sweep.md).

Run ids are derived from content, not position: ``<values>_s<seed>-<hash>`` (the
values in the order of their keys), the hash covering the resolved base scenario (fixed
overrides included), the axis overrides and the seed. A run whose parameters did not
change keeps its id when the plan is edited (axes reordered, values added or removed,
the plan renamed), so resuming reuses it; a changed base scenario or fixed override
changes every id.
"""

from __future__ import annotations

import datetime
import hashlib
import itertools
import json
import math
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Optional, Union

from ..errors import InvalidInputError
from ..scenario import Scenario
from ..toml_text import dumps, key_text, value_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

__all__ = ["Plan", "Axis", "Point", "BaseScenario", "PlanSource", "load_plan", "MAX_RUNS"]

#: At most this many runs in one plan (points × repetitions): a bound on memory and on
#: the run directories one sweep creates.
MAX_RUNS = 100_000
#: At most this many values in one axis (a ``range`` with a tiny step is refused early).
MAX_AXIS_VALUES = 10_000
#: A seed is a TOML integer: sim.seed + repetition stays below 2**63.
_SEED_MAX = 2**63 - 1

#: A key path as ``--set`` accepts it (crates/lfnlab-core/src/scenario/keypath.rs).
_KEY_PATH = re.compile(r"^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+|\[[0-9]+\])*$")
_SEGMENT = re.compile(r"\.?([A-Za-z0-9_-]+)|\[([0-9]+)\]")
#: A sweep name becomes a directory name (``out/<name>``): keep it portable.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_UNIT = re.compile(r"^[A-Za-z/%]{1,16}$")
#: The key every run sets itself (sweep.seed + repetition).
_SEED_KEY = "sim.seed"
_NO_DATETIMES = "date-times are not used in scenarios; expected a string, number, boolean, table or array"

#: What ``load_plan`` accepts: a plan file, a dict shaped like one, or a parsed Plan.
PlanSource = Union[str, "os.PathLike[str]", Mapping[str, Any], "Plan"]


@dataclass(frozen=True)
class BaseScenario:
    """The base scenario as given, before any override: what every run starts from.

    Overrides are applied to this input (not to the resolved scenario), so derived
    defaults follow overridden values, as with ``lfnlab run --set``.
    """

    #: The scenario as nested dicts (the parsed TOML file or the plan's ``[base]``).
    document: Mapping[str, Any]
    #: Its file path, or the plan file for an inline ``[base]``: names the input in
    #: errors and gives the default ``sim.name`` (the file stem).
    origin: str

    def scenario(self, sets: Sequence[str]) -> Scenario:
        """The resolved scenario with ``KEY=VALUE`` overrides. Raises InvalidInputError."""
        return Scenario.from_dict(self.document, set=list(sets), origin=self.origin)


@dataclass(frozen=True)
class Axis:
    """One dimension of the grid: a scenario key path and its values, in order."""

    #: A ``--set`` key path, e.g. ``link[1].queue.limit``.
    key: str
    #: The values as given (a ``range`` expanded), str, int, float, bool, list or dict.
    values: tuple[Any, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        """Each value as text: a string as given, anything else in TOML syntax."""
        return tuple(label(v) for v in self.values)


@dataclass(frozen=True)
class Point:
    """One run of the plan: a point of the grid and one repetition."""

    #: Stable, content-derived id; the name of the run's directory.
    run_id: str
    #: Position in this plan's grid order (first axis slowest, repetitions innermost).
    position: int
    #: ``(axis key, value as text)`` per axis, in axis order.
    params: tuple[tuple[str, str], ...]
    #: 0 … repetitions − 1.
    repetition: int
    #: ``sim.seed`` of this run.
    seed: int
    #: Every override, in order: ``sweep.set``, the axes, then ``sim.seed``.
    sets: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """A checked sweep plan. Build one with :func:`load_plan`."""

    #: ``sweep.name``, or the plan file's stem, or the base scenario's name.
    name: str
    #: Names the plan in errors: its path, or ``<dict>``.
    file: str
    #: The plan as given (``OUT/plan.toml``): the file's text, or a dict plan as TOML.
    text: str
    base: BaseScenario
    #: ``sweep.set`` as ``(key, value)`` pairs, in order.
    fixed: tuple[tuple[str, Any], ...]
    axes: tuple[Axis, ...]
    repetitions: int
    #: The seed of repetition 0.
    seed: int
    #: SHA-256 of the resolved base scenario with the fixed overrides (part of every run id).
    base_sha256: str

    @property
    def total(self) -> int:
        """The number of runs: the product of the axes' lengths × repetitions."""
        return math.prod(len(a.values) for a in self.axes) * self.repetitions

    def fixed_sets(self) -> list[str]:
        return [f"{k}={value_text(v)}" for k, v in self.fixed]

    def points(self) -> list[Point]:
        """Every run in grid order: the first axis varies slowest, repetitions fastest."""
        fixed = self.fixed_sets()
        out: list[Point] = []
        grid = itertools.product(*(a.values for a in self.axes))
        for values in grid:
            axis_sets = [f"{a.key}={value_text(v)}" for a, v in zip(self.axes, values)]
            params = tuple((a.key, label(v)) for a, v in zip(self.axes, values))
            for r in range(self.repetitions):
                seed = self.seed + r
                out.append(
                    Point(
                        run_id=_run_id(self.base_sha256, axis_sets, params, seed),
                        position=len(out),
                        params=params,
                        repetition=r,
                        seed=seed,
                        sets=(*fixed, *axis_sets, f"{_SEED_KEY}={seed}"),
                    )
                )
        return out

    def describe(self) -> str:
        """``3 × 2 points × 2 repetitions = 12 runs``."""
        dims = " × ".join(str(len(a.values)) for a in self.axes) or "1"
        word = "point" if dims == "1" else "points"
        reps = f" × {self.repetitions} repetitions" if self.repetitions > 1 else ""
        return f"{dims} {word}{reps} = {self.total} run{'s' if self.total != 1 else ''}"


def label(value: Any) -> str:
    """A value as index text: a string as given, anything else in TOML syntax."""
    return value if isinstance(value, str) else value_text(value)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]+", "-", text).strip("-.")


def _name_slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-._")


def _run_id(base_sha256: str, axis_sets: Sequence[str], params: Sequence[tuple[str, str]], seed: int) -> str:
    """``<values>_s<seed>-<hash>``: the values in the order of their keys, so that
    neither the id nor its hash depends on the order of the axes."""
    ident = json.dumps({"v": 1, "base": base_sha256, "sets": sorted(axis_sets), "seed": seed}, separators=(",", ":"))
    digest = hashlib.sha256(ident.encode("utf-8")).hexdigest()[:12]
    slug = "_".join([*(_slug(text) or "v" for _, text in sorted(params)), f"s{seed}"])
    slug = slug[:60].rstrip("_-.")
    return f"{slug}-{digest}"


def key_segments(key: str) -> tuple[Union[str, int], ...]:
    """``link[1].queue.limit`` → ``("link", 1, "queue", "limit")`` (syntax already checked)."""
    return tuple(m.group(1) if m.group(1) is not None else int(m.group(2)) for m in _SEGMENT.finditer(key))


def _is_within(inner: str, outer: str) -> bool:
    """True if key path ``inner`` is ``outer`` or inside it."""
    a, b = key_segments(inner), key_segments(outer)
    return a[: len(b)] == b


def _exists(document: Any, key: str) -> bool:
    here = document
    for seg in key_segments(key):
        if isinstance(seg, int):
            if not isinstance(here, list) or seg >= len(here):
                return False
            here = here[seg]
        else:
            if not isinstance(here, Mapping) or seg not in here:
                return False
            here = here[seg]
    return True


class _Checker:
    """Raises InvalidInputError naming the plan file and a key path in it."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, key_path: str, message: str) -> InvalidInputError:
        return InvalidInputError(message, self.file, key_path)

    def table(self, value: Any, where: str, allowed: Sequence[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected a table, got {_describe(value)}")
        for k in value:
            if k not in allowed:
                expected = ", ".join(f'"{a}"' for a in allowed)
                raise self.fail(_join(where, str(k)), f'unknown key "{k}"; expected one of {expected}')
        return value

    def integer(self, value: Any, where: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"expected an integer, got {_describe(value)}")
        if not low <= value <= high:
            raise self.fail(where, f"expected an integer from {low} to {high}, got {value}")
        return value

    def string(self, value: Any, where: str) -> str:
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str):
            raise self.fail(where, f"expected a string, got {_describe(value)}")
        if not value:
            raise self.fail(where, "must not be empty")
        return value

    def number(self, value: Any, where: str) -> Union[int, float]:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(where, f"expected a number, got {_describe(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(where, f"expected a finite number, got {value}")
        return value

    def key_path(self, value: Any, where: str) -> str:
        key = self.string(value, where)
        if not _KEY_PATH.match(key):
            raise self.fail(
                where, f'malformed key path "{key}"; expected a path such as link[1].queue.limit or sim.duration'
            )
        if key == _SEED_KEY:
            raise self.fail(
                where, "each run's sim.seed is sweep.seed + its repetition: set sweep.seed and sweep.repetitions instead"
            )
        return key

    def value(self, value: Any, where: str) -> Any:
        """A scenario value: str, int, float, bool, or lists and tables of these."""
        if isinstance(value, (datetime.date, datetime.time)):
            raise self.fail(where, _NO_DATETIMES)
        if isinstance(value, (str, bool, int, float)):
            return value
        if isinstance(value, Mapping):
            for k, v in value.items():
                if not isinstance(k, str):
                    raise self.fail(where, f"table keys must be strings, got {_describe(k)}")
                self.value(v, _join(where, k))
            return dict(value)
        if isinstance(value, (list, tuple)):
            return [self.value(v, f"{where}[{i}]") for i, v in enumerate(value)]
        raise self.fail(where, f"expected a string, number, boolean, table or array, got {_describe(value)}")


def _join(where: str, key: str) -> str:
    k = key_text(key)
    return f"{where}.{k}" if where else k


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the float {value}"
    if isinstance(value, str):
        return f'the string "{value}"'
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"a {type(value).__name__}"


def _range_values(c: _Checker, spec: Any, where: str) -> tuple[Any, ...]:
    """``{start, stop, step[, unit]}``: start, start + step, … up to and including stop."""
    spec = c.table(spec, where, ("start", "stop", "step", "unit"))
    for k in ("start", "stop", "step"):
        if k not in spec:
            raise c.fail(where, f'missing "{k}"; a range is {{ start = A, stop = B, step = C[, unit = "U"] }}')
    start, stop, step = (c.number(spec[k], f"{where}.{k}") for k in ("start", "stop", "step"))
    unit = None
    if "unit" in spec:
        unit = c.string(spec["unit"], f"{where}.unit")
        if not _UNIT.match(unit):
            raise c.fail(f"{where}.unit", f'expected a unit such as "Mbps", "KiB" or "ms", got "{unit}"')

    def exact(x: Union[int, float]) -> Decimal:
        return Decimal(repr(x)) if isinstance(x, float) else Decimal(x)

    try:
        d_start, d_stop, d_step = exact(start), exact(stop), exact(step)
    except InvalidOperation:  # pragma: no cover - repr of a finite float is always a decimal
        raise c.fail(where, "not a decimal number") from None
    if d_step <= 0:
        raise c.fail(f"{where}.step", f"must be positive, got {step}")
    if d_stop < d_start:
        raise c.fail(f"{where}.stop", f"must be at least start ({start}), got {stop}")
    try:
        count = int((d_stop - d_start) // d_step) + 1
    except InvalidOperation:  # DivisionImpossible: a quotient past the context's 28 digits (stop = 4e300)
        raise c.fail(where, f"gives more than 10^28 values; at most {MAX_AXIS_VALUES} per axis") from None
    if count > MAX_AXIS_VALUES:
        raise c.fail(where, f"gives {count} values; at most {MAX_AXIS_VALUES} per axis")
    points = [d_start + k * d_step for k in range(count)]
    if unit is not None:
        return tuple(f"{format(p.normalize(), 'f')}{unit}" for p in points)
    if all(isinstance(x, int) for x in (start, stop, step)):
        return tuple(int(p) for p in points)
    return tuple(float(p) for p in points)


def _axes(c: _Checker, raw: Any) -> tuple[Axis, ...]:
    if isinstance(raw, Mapping):
        raise c.fail("axis", "expected an array of tables ([[axis]] in TOML), got a table")
    if not isinstance(raw, (list, tuple)):
        raise c.fail("axis", f"expected an array of tables ([[axis]]), got {_describe(raw)}")
    axes: list[Axis] = []
    for i, item in enumerate(raw):
        where = f"axis[{i}]"
        item = c.table(item, where, ("key", "values", "range"))
        if "key" not in item:
            raise c.fail(where, 'missing "key", the scenario key path this axis sets')
        key = c.key_path(item["key"], f"{where}.key")
        if ("values" in item) == ("range" in item):
            raise c.fail(where, 'give exactly one of "values" (a list) or "range" ({ start, stop, step[, unit] })')
        if "values" in item:
            raw_values = item["values"]
            if not isinstance(raw_values, (list, tuple)):
                raise c.fail(f"{where}.values", f"expected an array of values, got {_describe(raw_values)}")
            if not raw_values:
                raise c.fail(f"{where}.values", "must not be empty")
            if len(raw_values) > MAX_AXIS_VALUES:
                raise c.fail(f"{where}.values", f"has {len(raw_values)} values; at most {MAX_AXIS_VALUES} per axis")
            values = tuple(c.value(v, f"{where}.values[{j}]") for j, v in enumerate(raw_values))
        else:
            values = _range_values(c, item["range"], f"{where}.range")
        seen: dict[str, int] = {}
        for j, v in enumerate(values):
            text = value_text(v)
            if text in seen:
                place = "values" if "values" in item else "range"
                raise c.fail(f"{where}.{place}[{j}]", f"duplicate of {place}[{seen[text]}] ({label(v)})")
            seen[text] = j
        axes.append(Axis(key, values))
    return tuple(axes)


def _check_overlaps(c: _Checker, fixed: Sequence[tuple[str, Any]], axes: Sequence[Axis]) -> None:
    """No key may be set twice, or inside another set key: the overrides then commute,
    and a run id need not depend on their order."""
    named = [(f"sweep.set.{key_text(k)}", k) for k, _ in fixed] + [(f"axis[{i}].key", a.key) for i, a in enumerate(axes)]
    for j, (where_j, key_j) in enumerate(named):
        for where_i, key_i in named[:j]:
            if _is_within(key_j, key_i) or _is_within(key_i, key_j):
                raise c.fail(where_j, f"{key_j} overlaps {key_i} ({where_i}); each key may be set once")


def _read_toml(path: Path, c: _Checker, where: str, what: str) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise c.fail(where, f"cannot read the {what} {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise InvalidInputError(f"not UTF-8 text: {e}", str(path), "") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InvalidInputError(f"TOML syntax error: {e}", str(path), "") from None


def _first_bad_value(value: Any, where: str) -> Optional[str]:
    """The key path of the first value JSON cannot carry (a TOML date-time), if any."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            bad = _first_bad_value(v, _join(where, str(k)))
            if bad is not None:
                return bad
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            bad = _first_bad_value(v, f"{where}[{i}]")
            if bad is not None:
                return bad
    elif not isinstance(value, (str, int, float, bool)) and not isinstance(value, os.PathLike):
        return where
    return None


def _base(c: _Checker, sweep: Mapping[str, Any], doc: Mapping[str, Any], base_dir: Path) -> BaseScenario:
    if "scenario" in sweep and "base" in doc:
        raise c.fail("base", "give the base scenario as sweep.scenario or as a [base] table, not both")
    if "base" in doc:
        base = doc["base"]
        if not isinstance(base, Mapping):
            raise c.fail("base", f"expected a table holding a whole scenario, got {_describe(base)}")
        return BaseScenario(dict(base), c.file)
    if "scenario" not in sweep:
        raise c.fail(
            "sweep.scenario",
            'missing the base scenario: give sweep.scenario = "FILE.toml" (relative to the plan) or a [base] table',
        )
    given = Path(c.string(sweep["scenario"], "sweep.scenario"))
    path = given if given.is_absolute() else base_dir / given
    if not path.is_file():
        raise c.fail("sweep.scenario", f"the base scenario {path} is not a file")
    _, document = _read_toml(path, c, "sweep.scenario", "base scenario")
    return BaseScenario(document, os.fspath(path))


def _resolve_base(c: _Checker, base: BaseScenario, fixed: Sequence[tuple[str, Any]]) -> Scenario:
    inline = base.origin == c.file
    bad = _first_bad_value(base.document, "")
    if bad is not None:
        message = _NO_DATETIMES
        if inline:
            raise c.fail(f"base.{bad}" if bad else "base", message)
        raise InvalidInputError(message, base.origin, bad)
    sets = [f"{k}={value_text(v)}" for k, v in fixed]
    try:
        return base.scenario(sets)
    except InvalidInputError as e:
        if e.file == "--set":
            for k, _ in fixed:
                if _KEY_PATH.match(e.key_path) and _is_within(e.key_path, k):
                    detail = e.message if e.key_path == k else f"{e.key_path}: {e.message}"
                    raise c.fail(f"sweep.set.{key_text(k)}", detail) from None
            raise c.fail("sweep.set", str(e)) from None
        if inline:
            raise c.fail(f"base.{e.key_path}" if e.key_path else "base", e.message) from None
        raise


def _check_axis_keys(
    c: _Checker, plan_base: BaseScenario, resolved: Mapping[str, Any], fixed_sets: list[str], axes: Sequence[Axis]
) -> None:
    """Each axis key must address the scenario: it exists in the resolved base (every
    default filled in), or at least one of the axis's values applies on its own."""
    for i, axis in enumerate(axes):
        if _exists(resolved, axis.key):
            continue
        first: Optional[InvalidInputError] = None
        for v in axis.values:
            try:
                plan_base.scenario([*fixed_sets, f"{axis.key}={value_text(v)}"])
                break
            except InvalidInputError as e:
                first = first or e
        else:
            assert first is not None
            where = first.key_path or axis.key
            raise c.fail(
                f"axis[{i}].key",
                f"{axis.key} is not a key of the scenario, and none of this axis's values applies to it "
                f"(the first: {where}: {first.message})",
            )


def _parse(doc: Mapping[str, Any], file: str, text: str, base_dir: Path, stem: Optional[str]) -> Plan:
    c = _Checker(file)
    doc = c.table(doc, "", ("sweep", "axis", "base"))
    if "sweep" not in doc:
        raise c.fail("sweep", "missing the [sweep] table (name, scenario, repetitions, seed, set)")
    sweep = c.table(doc["sweep"], "sweep", ("name", "scenario", "repetitions", "seed", "set"))
    name: Optional[str] = None
    if "name" in sweep:
        name = c.string(sweep["name"], "sweep.name")
        if not _NAME.match(name):
            raise c.fail("sweep.name", f'expected letters, digits, ".", "_" or "-" (a directory name), got "{name}"')
    repetitions = c.integer(sweep.get("repetitions", 1), "sweep.repetitions", 1, MAX_RUNS)
    fixed: list[tuple[str, Any]] = []
    if "set" in sweep:
        sets = sweep["set"]
        if not isinstance(sets, Mapping):
            raise c.fail("sweep.set", f"expected a table of key path = value, got {_describe(sets)}")
        for k, v in sets.items():
            where = f"sweep.set.{key_text(str(k))}"
            fixed.append((c.key_path(k, where), c.value(v, where)))
    axes = _axes(c, doc.get("axis", []))
    _check_overlaps(c, fixed, axes)
    total = math.prod(len(a.values) for a in axes) * repetitions
    if total > MAX_RUNS:
        raise c.fail("axis" if axes else "sweep.repetitions", f"the plan has {total} runs; at most {MAX_RUNS}")

    base = _base(c, sweep, doc, base_dir)
    resolved = _resolve_base(c, base, fixed)
    resolved_doc = resolved.to_dict()
    if "seed" in sweep:
        seed = c.integer(sweep["seed"], "sweep.seed", 0, _SEED_MAX - (repetitions - 1))
    else:
        seed = int(resolved_doc.get("sim", {}).get("seed", 1))
        if seed + repetitions - 1 > _SEED_MAX:
            raise c.fail("sweep.repetitions", f"sim.seed {seed} + {repetitions} repetitions passes {_SEED_MAX}")
    fixed_sets = [f"{k}={value_text(v)}" for k, v in fixed]
    _check_axis_keys(c, base, resolved_doc, fixed_sets, axes)

    if name is None:
        name = _name_slug(stem) if stem else ""
        if not _NAME.match(name):
            name = _name_slug(resolved.name) if _NAME.match(_name_slug(resolved.name)) else "sweep"
    return Plan(
        name=name,
        file=file,
        text=text,
        base=base,
        fixed=tuple(fixed),
        axes=axes,
        repetitions=repetitions,
        seed=seed,
        base_sha256=hashlib.sha256(resolved.to_toml().encode("utf-8")).hexdigest(),
    )


def _plain(value: Any) -> Any:
    """A dict plan with path objects as strings (for json/TOML)."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def load_plan(plan: PlanSource) -> Plan:
    """Read and check a plan: a TOML file, or a dict of the same shape (its
    ``sweep.scenario`` relative to the working directory).

    Raises InvalidInputError naming the plan file (or ``<dict>``) and the key path.
    """
    if isinstance(plan, Plan):
        return plan
    if isinstance(plan, Mapping):
        doc = _plain(plan)
        try:
            text = dumps(doc)
        except TypeError as e:
            _parse(doc, "<dict>", "", Path.cwd(), None)  # names the value at fault, if it can
            raise InvalidInputError(f"cannot be written as TOML: {e}", "<dict>", "") from None
        return _parse(doc, "<dict>", text, Path.cwd(), None)
    if not isinstance(plan, (str, os.PathLike)):
        raise InvalidInputError(f"expected a plan file path or a dict, got {type(plan).__name__}", "<arguments>", "plan")
    path = Path(plan)
    c = _Checker(os.fspath(path))
    if not path.is_file():
        raise c.fail("", "no such plan file" if not path.exists() else "not a file")
    text, doc = _read_toml(path, c, "", "plan file")
    return _parse(doc, os.fspath(path), text, path.parent, path.stem)
