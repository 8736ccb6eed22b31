"""Periodicity of a gait: the feet's motion, its autocorrelation, the checks and score.

:func:`motioncore.analysis.gait.analyze` measures these on the strikes it finds (see
:mod:`motioncore.analysis.gait` for strikes, half cycles and strides) and reports the
result on :class:`motioncore.analysis.gait.Gait`.

Periodicity (ours; §6.2 only says walking and running are periodic), checked
in this order, the first failure being the ``reason``:

1. the phase covers at least ``min_cycles`` (2) gait cycles (π per half cycle,
   so 4 alternating strikes suffice; a 3 s walk need not hold 2 left-to-left
   cycles);
2. left and right strikes alternate: at least ``min_alternation`` (0.9) of the
   consecutive strike pairs are half cycles (one spurious or missed strike in
   a long clip does not make it aperiodic);
3. the stride durations of both feet vary little: coefficient of variation at
   most ``max_cycle_cv`` (0.25);
4. the motion repeats: the normalised autocorrelation of both feet's positions
   relative to the hips, turned into the hips' heading, is at least
   ``min_autocorrelation`` (0.5) at the median stride (best lag within ±10 % of
   it, as strides vary).

The score is the product of the alternation share, ``1 - cv``, the
autocorrelation (each clipped to 0-1) and ``min(cycles / min_cycles, 1)``.
On the shared corpus (``tests/motioncore/analysis/test_gait.py``) 100 of the 163 locomotion
clips are periodic; most of the others are shorter than 2 cycles.

Conventions: ``F`` frames, ``fps`` Hz, seconds, radians, metres, Y up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]

_LAG_WINDOW = 0.1  # search ±10 % around the median cycle lag


def heading_features(positions: FloatArray, roles: JointRoles) -> FloatArray:
    """``[F, 6]`` both feet relative to the hips, turned into the hips' heading frame.

    The heading is the horizontal direction between the upper legs (the world
    X/Z axes when they are not resolved), so turning on the spot does not read
    as a change of gait.
    """
    hips = roles.get("hips")
    feet = list(roles.require("left_foot", "right_foot"))
    rel = positions[:, feet] - (positions[:, [hips]] if hips is not None else 0.0)
    legs = [roles.get("left_upper_leg"), roles.get("right_upper_leg")]
    if legs[0] is None or legs[1] is None:
        return np.asarray(rel.reshape(rel.shape[0], -1), dtype=np.float64)
    across = positions[:, legs[1]] - positions[:, legs[0]]
    yaw = np.arctan2(across[:, 2], across[:, 0])
    cos, sin = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
    x, z = rel[..., 0], rel[..., 2]
    turned = np.stack((cos * x + sin * z, rel[..., 1], -sin * x + cos * z), axis=-1)
    return np.asarray(turned.reshape(rel.shape[0], -1), dtype=np.float64)


def autocorrelation(signal: FloatArray, lag: int) -> float:
    """Normalised autocorrelation (-1..1) of ``signal [F, C]`` at ``lag`` frames.

    The signal minus its mean, correlated with itself ``lag`` frames later over
    the overlapping frames and normalised by both parts' energies, all channels
    pooled (nan when it cannot be measured: ``lag`` out of range, a constant signal).
    """
    if not 0 < lag < signal.shape[0] - 1:
        return float("nan")
    x = signal - signal.mean(axis=0)
    a, b = x[:-lag], x[lag:]
    den = np.sqrt(np.sum(a * a) * np.sum(b * b))
    return float(np.sum(a * b) / den) if den > 0 else float("nan")


def best_autocorrelation(signal: FloatArray, cycle_frames: float) -> float:
    """Highest autocorrelation at lags within ±10 % of ``cycle_frames``."""
    lo = max(int(np.floor(cycle_frames * (1 - _LAG_WINDOW))), 1)
    hi = int(np.ceil(cycle_frames * (1 + _LAG_WINDOW)))
    values = [autocorrelation(signal, lag) for lag in range(lo, hi + 1)]
    finite = [v for v in values if np.isfinite(v)]
    return max(finite) if finite else float("nan")


@dataclass(frozen=True)
class Checks:
    """The measured periodicity checks of one clip (nan where not measurable)."""

    strikes: int
    cycles: float
    alternation: float
    cycle_s: float
    cv: float
    corr: float

    def failure(
        self, min_cycles: float, min_alternation: float, max_cv: float, min_corr: float
    ) -> str | None:
        """The first failing check as a sentence, ``None`` when all pass."""
        if self.strikes == 0:
            return "no foot contacts: no foot strikes the ground"
        if self.cycles < min_cycles:
            return f"fewer than {min_cycles:g} complete cycles (the phase covers {self.cycles:g})"
        if not self.alternation >= min_alternation:
            return f"left and right strikes do not alternate ({self.alternation:.0%} of pairs do)"
        if not self.cv <= max_cv:
            return f"cycle durations vary by {self.cv:.0%} (more than {max_cv:.0%})"
        if not self.corr >= min_corr:
            return (
                "the feet's motion does not repeat each cycle "
                f"(autocorrelation {self.corr:.2f} below {min_corr:.2f})"
            )
        return None

    def score(self, min_cycles: float) -> float:
        """0-1: product of the alternation share, ``1 - cv``, the autocorrelation
        and ``min(cycles / min_cycles, 1)`` (0 where one is not measured)."""
        cover = min(self.cycles / min_cycles, 1.0) if min_cycles > 0 else 1.0
        parts = np.array([self.alternation, 1.0 - self.cv, self.corr, cover])
        return float(np.prod(np.clip(np.nan_to_num(parts, nan=0.0), 0.0, 1.0)))


def measure(
    events: tuple[IntArray, IntArray, BoolArray],
    strides: tuple[IntArray, IntArray, IntArray],
    signal: FloatArray,
    fps: float,
) -> Checks:
    """Cycles covered, alternation, stride statistics and autocorrelation, from the
    merged strikes ``events`` and their ``strides`` (see :mod:`motioncore.analysis.gait`)."""
    nan = float("nan")
    frames, _, half = events
    starts, stops, _ = strides
    durations = (stops - starts) / fps
    cycle_s = float(np.median(durations)) if durations.size else nan
    return Checks(
        strikes=int(frames.size),
        cycles=float(np.count_nonzero(half)) / 2.0,
        alternation=float(half.mean()) if half.size else nan,
        cycle_s=cycle_s,
        cv=float(durations.std() / durations.mean()) if durations.size else nan,
        corr=best_autocorrelation(signal, cycle_s * fps) if durations.size else nan,
    )
