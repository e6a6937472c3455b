"""The kernel's TCP state of the data connection: ``ss -tin`` in the sender's
namespace, 10 times a second, on a thread.

Each sample is taken as ``ip netns exec SND ss -tinH state all sport = :PORT`` and
timed at the midpoint of the call (CLOCK_REALTIME ns, the relay's clock). Only the
information line of the socket is kept, parsed into the fields ``ss`` prints
(tcp_info): ``cwnd``, ``ssthresh``, ``rtt``, ``pacing_rate``, ``delivery_rate``,
``retrans``, ``bytes_acked``, … (:func:`parse_info`).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from .lab import Lab
from .registry import run_command

__all__ = ["Sampler", "Sample", "parse_info", "parse_rate_bps", "PERIOD_S"]

#: Sampling period, s (10 Hz).
PERIOD_S = 0.1

_RATE = re.compile(r"^([0-9.]+)([KMGT]?)bps$")
_MS = re.compile(r"^([0-9.]+)ms\b")
_PREFIX = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
#: Tokens followed by their value as the next token.
_VALUE_NEXT = ("send", "pacing_rate", "delivery_rate")


def parse_rate_bps(text: str) -> Optional[float]:
    """``"98315616bps"`` or ``"95.2Mbps"`` → bit/s (the part before a ``/``)."""
    m = _RATE.match(text.split("/")[0])
    return None if m is None else float(m.group(1)) * _PREFIX[m.group(2)]


def parse_info(line: str) -> dict[str, Any]:
    """The fields of one ``ss -i`` information line.

    Numbers become floats; ``rtt:A/B`` gives ``rtt_ms`` and ``rttvar_ms``;
    ``retrans:A/B`` gives ``retrans_out`` and ``retrans_total``; rates are bit/s; the
    first word (the congestion control) is ``cc``; flags such as ``app_limited`` are True.
    """
    tokens = line.split()
    out: dict[str, Any] = {}
    if tokens and ":" not in tokens[0] and tokens[0] not in _VALUE_NEXT:
        out["cc"] = tokens[0]
        tokens = tokens[1:]
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok in _VALUE_NEXT and i < len(tokens):
            out[f"{tok}_bps"] = parse_rate_bps(tokens[i])
            i += 1
            continue
        key, sep, value = tok.partition(":")
        if not sep:
            out[key] = True
        elif key == "rtt":
            a, _, b = value.partition("/")
            out["rtt_ms"], out["rttvar_ms"] = float(a), float(b or "nan")
        elif key == "retrans":
            a, _, b = value.partition("/")
            out["retrans_out"], out["retrans_total"] = float(a), float(b or a)
        elif key.startswith("bbr") or key.startswith("("):
            out["cc_detail"] = tok
        else:
            try:
                out[key] = float(value)
            except ValueError:
                m = _MS.match(value)  # busy:1504ms, rwnd_limited:76ms(5.1%)
                out[key] = float(m.group(1)) if m else value
    return out


@dataclass
class Sample:
    """One ``ss`` sample: when (CLOCK_REALTIME ns) and the socket's fields."""

    t_ns: int
    state: str
    fields: dict[str, Any] = field(default_factory=dict)


class Sampler(threading.Thread):
    """Samples the socket bound to ``port`` in ``namespace`` every :data:`PERIOD_S` until stopped."""

    def __init__(self, namespace: str, port: int) -> None:
        super().__init__(name="lfnlab-ss-sampler", daemon=True)
        self.command = [*Lab.exec(namespace), "ss", "-tinH", "state", "all", f"sport = :{port}"]
        self.samples: list[Sample] = []
        self.errors: list[str] = []
        self._stop_event = threading.Event()

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    def run(self) -> None:
        next_t = time.monotonic()
        while not self._stop_event.is_set():
            before = time.time_ns()
            r = run_command(self.command)
            after = time.time_ns()
            if r.returncode != 0:
                self.errors.append(r.stderr.strip())
            else:
                s = _parse_output(r.stdout, (before + after) // 2)
                if s is not None:
                    self.samples.append(s)
            next_t += PERIOD_S
            self._stop_event.wait(max(0.0, next_t - time.monotonic()))


def _parse_output(text: str, t_ns: int) -> Optional[Sample]:
    """The first socket of ``ss -tinH`` output that has an information line."""
    lines = text.splitlines()
    for head, info in zip(lines, lines[1:]):
        if head[:1].isspace() or not info[:1].isspace():
            continue
        fields = parse_info(info)
        if "cwnd" in fields:
            return Sample(t_ns=t_ns, state=head.split()[0], fields=fields)
    return None
