"""Interleaved (round-robin) timing with paired ratios.

Every task gets one warm-up call first; its output is kept for the correctness
check. Then ``rounds`` rounds run every task back to back, in an order rotated
by one each round, so slow phases of a noisy machine hit all tasks alike. A
ratio between two tasks is taken *within* a round and the median over rounds is
reported (the paired ratio), which is far more stable than a ratio of medians.

Slow tasks get fewer runs: ``floor(budget_s / warm-up time)``, at least 1. A task
whose warm-up alone exceeds ``max_call_s`` keeps the warm-up as its only sample,
and a task predicted (from its per-frame rate on an earlier file) to exceed
``max_call_s`` is skipped with the reason recorded.
"""

from __future__ import annotations

import gc
import statistics
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Task:
    """A timed operation: ``setup()`` is untimed, ``call(setup())`` is timed."""

    name: str
    setup: Callable[[], Any]
    call: Callable[[Any], Any]
    predicted_s: float | None = None


@dataclass
class Result:
    """Samples of one task: seconds per round, plus what happened."""

    name: str
    times: dict[int, float] = field(default_factory=dict)
    warmup_s: float | None = None
    planned: int = 0
    note: str = ""
    error: str | None = None
    setup_out: Any = None
    output: Any = None

    @property
    def ok(self) -> bool:
        """True when there is at least one sample and no error."""
        return self.error is None and bool(self.times)

    @property
    def median_s(self) -> float:
        """Median seconds per call."""
        return statistics.median(self.times.values())

    @property
    def spread(self) -> float:
        """``(max - min) / median`` of the samples."""
        values = list(self.times.values())
        return (max(values) - min(values)) / self.median_s if len(values) > 1 else 0.0


def _timed(task: Task) -> tuple[float, Any, Any]:
    arg = task.setup()
    gc.collect()
    start = time.perf_counter()
    out = task.call(arg)
    return time.perf_counter() - start, arg, out


def _warm_up(task: Task, rounds: int, budget_s: float, max_call_s: float) -> Result:
    result = Result(task.name)
    if task.predicted_s is not None and task.predicted_s > max_call_s:
        result.note = (
            f"skipped: predicted {task.predicted_s:.0f} s/call > --max-call-s {max_call_s:g}"
        )
        return result
    try:
        elapsed, result.setup_out, result.output = _timed(task)
    except Exception as exc:  # a failing library is a result, not a crash
        result.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        result.note = traceback.format_exc(limit=3)
        return result
    result.warmup_s = elapsed
    if elapsed > max_call_s:
        result.times[0] = elapsed
        result.planned = 1
        result.note = f"warm-up kept as the only sample ({elapsed:.1f} s > {max_call_s:g} s)"
    else:
        result.planned = max(1, min(rounds, int(budget_s / max(elapsed, 1e-9))))
    return result


def run_rounds(tasks: list[Task], rounds: int, budget_s: float, max_call_s: float) -> list[Result]:
    """Warm up every task, then ``rounds`` interleaved rounds; returns one Result per task."""
    results = [_warm_up(t, rounds, budget_s, max_call_s) for t in tasks]
    pairs = list(zip(tasks, results, strict=True))
    for r in range(rounds if pairs else 0):
        shift = r % len(pairs)
        for task, res in pairs[shift:] + pairs[:shift]:
            if res.error is not None or len(res.times) >= res.planned or r in res.times:
                continue
            try:
                res.times[r] = _timed(task)[0]
            except Exception as exc:
                res.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
    return results


def paired_ratio(num: Result | None, den: Result | None) -> float | None:
    """Median over common rounds of ``num / den`` (None if either has no samples)."""
    if num is None or den is None or not num.ok or not den.ok:
        return None
    common = sorted(set(num.times) & set(den.times))
    if not common:
        return num.median_s / den.median_s
    return statistics.median(num.times[r] / den.times[r] for r in common)
