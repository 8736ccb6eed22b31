"""Boolean masks over frames: runs, hysteresis, gaps filled and short runs dropped.

Conventions: masks are ``[F]`` bool, one value per frame; a run is ``(start, stop)``
with ``stop`` exclusive.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import NDArray

BoolArray = NDArray[np.bool_]


def hysteresis(enter: BoolArray, stay: BoolArray) -> BoolArray:
    """``[F]`` on from a frame where ``enter`` holds until ``stay`` stops holding.

    ``enter`` is taken inside ``stay``; each run of ``stay`` is on from its first
    ``enter`` frame to its end.
    """
    stay = np.asarray(stay, dtype=bool) | np.asarray(enter, dtype=bool)
    out = np.zeros_like(stay)
    for start, stop in segments(stay):
        hits = np.flatnonzero(enter[start:stop])
        if hits.size:
            out[start + int(hits[0]) : stop] = True
    return out


def fill_gaps(mask: BoolArray, frames: int) -> BoolArray:
    """``mask [F]`` with gaps shorter than ``frames`` between two runs filled."""
    out = np.asarray(mask, dtype=bool).copy()
    runs = segments(out)
    for (_, stop), (start, _) in itertools.pairwise(runs):
        if start - stop < frames:
            out[stop:start] = True
    return out


def drop_short(mask: BoolArray, frames: int) -> BoolArray:
    """``mask [F]`` without runs shorter than ``frames``, except runs that touch the
    first or the last frame (the clip cuts them: their length is not seen)."""
    out = np.asarray(mask, dtype=bool).copy()
    for start, stop in segments(out):
        if stop - start < frames and start > 0 and stop < out.size:
            out[start:stop] = False
    return out


def segments(mask: BoolArray) -> list[tuple[int, int]]:
    """Runs of ``True`` in ``mask [F]`` as ``(start, stop)`` frame pairs (``stop`` exclusive)."""
    padded = np.concatenate([[False], np.asarray(mask, dtype=bool), [False]])
    edges = np.flatnonzero(np.diff(padded.astype(np.int8)))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]
