"""Transitions from clip A into clip B: where to cut A, where to enter B, and how good it is.

Seed 000 §4.1 cuts A at a momentum transition point (MTP, §3.1) and aligns B to
it; §6.3 compares MTP with three baselines (the cut methods:
:mod:`motioncore.transition.cuts`); §6.1 defines the metrics
(:mod:`motioncore.transition.metrics`); §6.2 advises an inserted transition (or
a longer blend) for near-180° reversals.

Conventions: metres, seconds, radians, Y up, quaternions ``(w, x, y, z)``;
velocities are COM velocities (:func:`motioncore.analysis.momentum.measure`).

Every method enters B at the best entry for its cut
(:func:`motioncore.transition.entry.best_entry`). ``recommendation`` is
:data:`motioncore.analysis.mtp.REVERSAL_ADVICE` when the angle between A's velocity at
the cut and B's aligned entry velocity is ≥ 150°, or, for ``mtp``, when the only
candidates were reversals (§6.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore.analysis import mtp
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.parameters import (
    ALPHA,
    BLEND_MAX_S,
    BLEND_MIN_S,
    DEFAULT_BLEND,
    DEFAULT_MEASURE,
    THETA_MAX_DEG,
    Measure,
)
from motioncore.transition import blend as blend_mod
from motioncore.transition import blend_choice, engine
from motioncore.transition.blend_choice import BlendBounds, BlendChoice, BlendRequest
from motioncore.transition.cuts import (
    METHODS,
    Cut,
    CutMethod,
    Pair,
    baseline_cut,
    entry_for,
    mtp_cut,
    prepare,
)
from motioncore.transition.entry import (
    DEFAULT_WEIGHTS,
    Choice,
    Entry,
    EntryWeights,
    Features,
)
from motioncore.transition.limits import Verdict, verdict
from motioncore.transition.metrics import Metrics, State, angle_deg, evaluate

FloatArray = NDArray[np.float64]
REVERSAL_DEG = 150.0


@dataclass(frozen=True, eq=False)
class Transition:
    """One planned transition: the cut, the entry, the blended clip and its metrics.

    ``candidates`` is how many MTP candidate cuts were paired with entries (0 for
    the baselines); ``next_best`` the next best (cut frame, entry) of the search
    (:func:`motioncore.transition.entry.search`), ``None`` when there was none.
    """

    cut: Cut
    entry: Entry
    result: blend_mod.BlendResult
    metrics: Metrics
    state: State
    recommendation: str | None
    blending: BlendChoice
    candidates: int = 0
    next_best: tuple[int, Entry] | None = None

    @property
    def verdict(self) -> Verdict:
        """Whether the join meets the limits (:mod:`motioncore.transition.limits`)."""
        return verdict(self.metrics)

    @property
    def blend_s(self) -> float:
        """The blend's length, seconds (chosen or given: :attr:`blending`)."""
        return self.blending.blend_s

    @property
    def clip(self) -> Clip:
        """The transition clip (A until the cut, the blend, then aligned B)."""
        return self.result.clip

    def as_dict(self) -> dict[str, Any]:
        """JSON-able report (the clip itself is exported separately)."""
        return {
            "cut": self.cut.as_dict(),
            "entry": self.entry.as_dict(),
            "blend_s": self.blend_s,
            "blend": self.result.method,
            "blending": self.blending.as_dict(),
            "layout": self.result.as_dict(),
            "metrics": self.metrics.as_dict(),
            "state": self.state.as_dict(),
            "recommendation": self.recommendation,
            "candidates": self.candidates,
            "next_best": _next_best(self.next_best, self.clip.fps),
            "verdict": self.verdict.as_dict(),
        }


def _next_best(pair: tuple[int, Entry] | None, fps: float) -> dict[str, Any] | None:
    """``{"cut": {"frame", "time_s"}, "entry": Entry.as_dict()}`` or ``None``."""
    if pair is None:
        return None
    cut, entry = pair
    return {"cut": {"frame": cut, "time_s": cut / fps}, "entry": entry.as_dict()}


def _plan(
    pair: Pair,
    method: CutMethod,
    *,
    blend_s: float | None,
    blend: BlendRequest,
    bounds: BlendBounds,
    threshold_ratio: float,
    search_s: float,
    weights: EntryWeights,
) -> Transition:
    if method not in METHODS:
        raise MotionCoreError(f"unknown cut method {method!r}: use one of {METHODS}")
    choice: Choice | None = None
    result, considered = pair.undirected, 0
    if method == "mtp":
        cut, choice, result, considered = mtp_cut(pair, search_s, weights)
    else:
        cut = baseline_cut(pair, method, threshold_ratio)
    if choice is None:
        choice = entry_for(pair, cut.frame, search_s, weights)
    return join(
        pair,
        cut,
        choice,
        blend_s=blend_s,
        blend=blend,
        bounds=bounds,
        candidates=considered,
        reversal_only=result.recommendation is not None,
    )


def join(
    pair: Pair,
    cut: Cut,
    choice: Choice,
    *,
    blend_s: float | None,
    blend: BlendRequest,
    bounds: BlendBounds,
    candidates: int = 0,
    reversal_only: bool = False,
) -> Transition:
    """A's ``cut`` joined to B at ``choice``'s entry, with the blend chosen from the
    mismatch there (or the one given), and measured. ``reversal_only``: the MTP test
    found only reversed candidates (its advice is then given whatever the angle)."""
    if blend != "auto" and blend not in blend_mod.BLENDS:
        raise MotionCoreError(f"unknown blend {blend!r}: use auto, crossfade or inertialize")
    entry = choice.entry
    blending = blend_choice.choose(
        pose_m=entry.pose_m,
        velocity_jump_m_per_s=entry.velocity_m_per_s,
        angle_deg=angle_deg(pair.a.velocity[cut.frame], pair.b.velocity[entry.frame]),
        frames_after_cut=pair.a.clip.num_frames - 1 - cut.frame,
        fps=pair.a.clip.fps,
        bounds=bounds,
        method=blend,
        blend_s=blend_s,
    )
    joined = blend_mod.BLENDS[blending.method](
        pair.a.clip, cut.frame, pair.b.clip, entry.frame, blending.blend_s, roles=pair.a.roles
    )
    metrics, state = evaluate(pair.a, pair.b, joined, entry.pose_m)
    reversal = state.angle_deg is not None and state.angle_deg >= REVERSAL_DEG
    advice = mtp.REVERSAL_ADVICE if reversal or reversal_only else None
    return Transition(
        cut, entry, joined, metrics, state, advice, blending, candidates, choice.next_best
    )


def plan(
    a: Clip | Features,
    b: Clip | Features,
    *,
    method: CutMethod = "mtp",
    alpha: float = ALPHA.default,
    theta_max_deg: float = THETA_MAX_DEG.default,
    measure: Measure = DEFAULT_MEASURE,
    blend_s: float | None = None,
    blend: BlendRequest = DEFAULT_BLEND,
    blend_min_s: float = BLEND_MIN_S.default,
    blend_max_s: float = BLEND_MAX_S.default,
    phase_a: ArrayLike | None = None,
    phase_b: ArrayLike | None = None,
    threshold_ratio: float = 0.5,
    search_s: float = 1.0,
    weights: EntryWeights = DEFAULT_WEIGHTS,
) -> Transition:
    """Plan the transition from A into B with one cut ``method`` (module docstring).

    Args:
        a, b: clips of the same skeleton (or their :func:`motioncore.transition.entry.features`);
            B is resampled to A's rate and put in A's joint order when needed.
        alpha, theta_max_deg, measure: the MTP test (seed 000 §3.1, §3.3;
            :mod:`motioncore.parameters`).
        blend_s, blend: blend length (seconds; ``None``: chosen from the mismatch) and
            kind (``"auto"``: chosen; :mod:`motioncore.transition.blend_choice`).
        blend_min_s, blend_max_s: the bounds of a chosen length, seconds.
        phase_a, phase_b: ``[F_A]``, ``[F_B]`` gait phase, radians (nan = undefined).
        threshold_ratio: the ``threshold`` method's fraction of the peak speed.
        search_s, weights: the entry search (:mod:`motioncore.transition.entry`).

    Raises:
        MotionCoreError: different skeletons, unknown method, blend or measure,
            clips shorter than 3 frames, phases of the wrong length.
    """
    pair = prepare(a, b, alpha, theta_max_deg, measure, phase_a, phase_b)
    return _plan(
        pair,
        method,
        blend_s=blend_s,
        blend=blend,
        bounds=BlendBounds(blend_min_s, blend_max_s),
        threshold_ratio=threshold_ratio,
        search_s=search_s,
        weights=weights,
    )


@dataclass(frozen=True, eq=False)
class Comparison:
    """The four cut methods on one pair of clips (``transitions`` by method)."""

    transitions: dict[CutMethod, Transition]
    engine: dict[str, Any]
    alpha: float
    theta_max_deg: float
    measure: str
    blend_request: dict[str, Any]
    pair: Pair
    """Both clips as prepared (a bridge search starts from them)."""
    leading_frames_dropped: tuple[int, int] = (0, 0)

    @property
    def chosen(self) -> Transition:
        """The MTP transition (the one to export)."""
        return self.transitions["mtp"]

    def as_dict(self) -> dict[str, Any]:
        """The stable report: ``cut``, ``entry``, ``next_best``, ``verdict``, ``blend_s``,
        ``blend`` and ``blending`` (MTP's), ``blend_request`` (what was asked: ``blend``,
        ``blend_s``, ``blend_min_s``, ``blend_max_s``), ``metrics`` per method,
        ``methods`` (each method's ``cut``, ``entry``, ``next_best``, ``blend_s``,
        ``blend``, ``blending``, ``layout`` and ``recommendation``), ``engine``,
        ``recommendation``, ``alpha``, ``theta_max_deg``, ``measure``."""
        return {
            "cut": self.chosen.cut.as_dict(),
            "entry": self.chosen.entry.as_dict(),
            "next_best": _next_best(self.chosen.next_best, self.chosen.clip.fps),
            "verdict": self.chosen.verdict.as_dict(),
            "blend_s": self.chosen.blend_s,
            "blend": self.chosen.result.method,
            "blending": self.chosen.blending.as_dict(),
            "blend_request": self.blend_request,
            "metrics": {m: t.metrics.as_dict() for m, t in self.transitions.items()},
            "methods": {
                m: {
                    "cut": t.cut.as_dict(),
                    "entry": t.entry.as_dict(),
                    "next_best": _next_best(t.next_best, t.clip.fps),
                    "blend_s": t.blend_s,
                    "blend": t.result.method,
                    "blending": t.blending.as_dict(),
                    "layout": t.result.as_dict(),
                    "recommendation": t.recommendation,
                }
                for m, t in self.transitions.items()
            },
            "engine": self.engine,
            "recommendation": self.chosen.recommendation,
            "alpha": self.alpha,
            "theta_max_deg": self.theta_max_deg,
            "measure": self.measure,
            "leading_frames_dropped": dict(zip("ab", self.leading_frames_dropped, strict=True)),
        }


def compare(
    a: Clip | Features,
    b: Clip | Features,
    *,
    alpha: float = ALPHA.default,
    theta_max_deg: float = THETA_MAX_DEG.default,
    measure: Measure = DEFAULT_MEASURE,
    blend_s: float | None = None,
    blend: BlendRequest = DEFAULT_BLEND,
    blend_min_s: float = BLEND_MIN_S.default,
    blend_max_s: float = BLEND_MAX_S.default,
    phase_a: ArrayLike | None = None,
    phase_b: ArrayLike | None = None,
    threshold_ratio: float = 0.5,
    search_s: float = 1.0,
    weights: EntryWeights = DEFAULT_WEIGHTS,
) -> Comparison:
    """:func:`plan` with every method of :data:`METHODS` (clips measured once) and the
    engine settings of the MTP transition (:func:`motioncore.transition.engine.parameters`)."""
    pair = prepare(a, b, alpha, theta_max_deg, measure, phase_a, phase_b)
    bounds = BlendBounds(blend_min_s, blend_max_s)
    transitions = {
        m: _plan(
            pair,
            m,
            blend_s=blend_s,
            blend=blend,
            bounds=bounds,
            threshold_ratio=threshold_ratio,
            search_s=search_s,
            weights=weights,
        )
        for m in METHODS
    }
    chosen = transitions["mtp"]
    settings = engine.parameters(
        chosen.cut.frame,
        pair.a.clip.num_frames,
        chosen.entry.frame,
        pair.b.clip.num_frames,
        pair.a.clip.fps,
        chosen.blend_s,
    )
    request = {
        "blend": blend,
        "blend_s": blend_s,
        "blend_min_s": blend_min_s,
        "blend_max_s": blend_max_s,
    }
    return Comparison(
        transitions, settings, alpha, theta_max_deg, measure, request, pair, pair.dropped
    )
