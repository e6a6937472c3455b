"""Property-based fuzzing of the Python input surfaces (issue 12): scenarios built
from random nested dicts, random `--set` overrides and random sweep plans. Whatever
the input, the answer is a valid scenario or plan, or an ``InvalidInputError`` that
names a key path; never another exception, a panic or a hang.

The seed corpus is the examples: each case mutates one of them.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lfnlab
from lfnlab.toml_text import value_text
from support import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.toml") if b"[sweep]" not in p.read_bytes())
CORPUS = [tomllib.loads(p.read_text(encoding="utf-8")) for p in EXAMPLES]

#: Scalars a user might type, sane and not.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["1Gbps", "500Mbps", "62.5MB/s", "128KiB", "1500B", "200ms", "0s", "-1ms", "1e400Gbps",
                     "cubic", "newreno", "host", "router", "snd", "wan", "rcv", "snd->wan", "", "∞", "9" * 40]),
    st.text(max_size=12),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def _paths(doc: Any, prefix: str = "") -> list[str]:
    """Every key path of a parsed scenario, in the `--set` syntax."""
    out = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            here = f"{prefix}.{k}" if prefix else str(k)
            out.append(here)
            out += _paths(v, here)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            here = f"{prefix}[{i}]"
            out.append(here)
            out += _paths(v, here)
    return out


def _set_at(doc: Any, path: str, value: Any) -> None:
    parts = [p for p in path.replace("]", "").replace("[", ".").split(".") if p]
    for p in parts[:-1]:
        doc = doc[int(p)] if isinstance(doc, list) else doc[p]
    last = parts[-1]
    if isinstance(doc, list):
        doc[int(last)] = value
    else:
        doc[last] = value


def _ok_or_invalid(build: Any) -> None:
    try:
        build()
    except lfnlab.InvalidInputError as e:
        assert e.file, e
        assert e.message, e
    # Anything else (TypeError, SimulationError, a panic as SimulationError) fails the test.


@FUZZ
@given(example=st.integers(min_value=0, max_value=len(CORPUS) - 1), data=st.data(), value=VALUES)
def test_a_scenario_dict_with_one_random_value(example: int, data: st.DataObject, value: Any) -> None:
    doc = copy.deepcopy(CORPUS[example])
    path = data.draw(st.sampled_from(_paths(doc)))
    _set_at(doc, path, value)
    _ok_or_invalid(lambda: lfnlab.Scenario.from_dict(doc))


@FUZZ
@given(example=st.integers(min_value=0, max_value=len(CORPUS) - 1), key=st.text(max_size=30), value=VALUES)
def test_a_random_override(example: int, key: str, value: Any) -> None:
    _ok_or_invalid(lambda: lfnlab.Scenario.from_file(EXAMPLES[example], set={key: value}))
    try:
        text = value if isinstance(value, str) else value_text(value)
    except TypeError:  # no TOML form (None): the dict form above must have refused it
        return
    _ok_or_invalid(lambda: lfnlab.Scenario.from_file(EXAMPLES[example], set=[f"{key}={text}"]))


@FUZZ
@given(doc=st.dictionaries(st.sampled_from(["sweep", "axis", "base", "x"]), VALUES, max_size=3), axis_key=st.text(max_size=20), values=VALUES)
def test_a_random_sweep_plan(doc: dict[str, Any], axis_key: str, values: Any) -> None:
    from lfnlab.sweep.plan import load_plan

    plan: dict[str, Any] = {"sweep": {"scenario": str(ROOT / "examples" / "dumbbell.toml")}, "axis": [{"key": axis_key, "values": values}]}
    plan.update(doc)
    # Only parsing and checking: a plan that passes is not run.
    _ok_or_invalid(lambda: load_plan(plan))
