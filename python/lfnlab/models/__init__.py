"""Analytical reference models that experiments draw next to the simulation.

:mod:`lfnlab.models.quickstart`: the response-time / speedup model of Quick-Start TCP
(spec 02 §2.8), used for E2's model curves (spec 02 §4.3).
"""

from __future__ import annotations

from .quickstart import (
    E2_RTTS_S,
    E2_SIZES_BYTES,
    SSTHRESH_POLICIES,
    SSTHRESH_SEGMENTS,
    AckModel,
    PathModel,
    Round,
    data_phase_s,
    max_window_valid,
    qs_round_sizes,
    qs_window_segments,
    response_time_qs,
    response_time_ss,
    round_sizes,
    rounds,
    segments_for,
    speedup,
    speedup_table,
)

__all__ = [
    "AckModel",
    "PathModel",
    "Round",
    "SSTHRESH_SEGMENTS",
    "SSTHRESH_POLICIES",
    "E2_RTTS_S",
    "E2_SIZES_BYTES",
    "segments_for",
    "rounds",
    "round_sizes",
    "data_phase_s",
    "response_time_ss",
    "response_time_qs",
    "qs_round_sizes",
    "qs_window_segments",
    "speedup",
    "max_window_valid",
    "speedup_table",
]
