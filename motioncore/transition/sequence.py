"""A sequence: N clips of one skeleton played in order, each join cut by MTP.

The sequencer joins clip 1 into clip 2 as a transition does (:func:`join_next`), then
the result into clip 3, and so on: join ``k`` cuts the clip built so far at an MTP
candidate at least :data:`MIN_PLAY_S` after the previous join's blend ended (so every
clip between two joins plays), and enters clip ``k + 1`` at its best entry
(:mod:`motioncore.transition.entry`); each blend is chosen from its own mismatch
(:mod:`motioncore.transition.blend_choice`). A join can be set by hand
(:class:`JoinEdit`: the cut, in the frames of the clip it leaves, and/or the entry, in
the frames of the clip it enters); what is not set is searched. Every clip is put at
the first clip's frame rate and joint order (:func:`motioncore.transition.cuts.conform`).

Each join carries its transition (metrics and verdict: :class:`Transition`), and the
sequence its segments: which frames of which clip play where in the output.
Units: frames at the first clip's rate, seconds, metres.
"""

from __future__ import annotations

from collections.abc import Sequence as Ordered
from dataclasses import dataclass
from typing import Any

from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.parameters import ALPHA, BLEND_MAX_S, BLEND_MIN_S, THETA_MAX_DEG
from motioncore.transition.blend_choice import BlendBounds, BlendRequest
from motioncore.transition.cuts import Cut, Pair, entry_for, mtp_cut, prepare
from motioncore.transition.entry import DEFAULT_WEIGHTS, Choice, costs, entry_at, features
from motioncore.transition.planning import Transition, join

MIN_PLAY_S = 0.5
"""Least of each middle clip that plays between its two joins, seconds (ours)."""
MAX_CLIPS = 32
"""Most clips in one sequence."""


@dataclass(frozen=True)
class JoinEdit:
    """A join set by hand: ``cut`` in the frames of the clip it leaves, ``entry`` in the
    frames of the clip it enters (both at the first clip's rate); ``None`` is searched."""

    cut: int | None = None
    entry: int | None = None


@dataclass(frozen=True)
class Segment:
    """Clip ``index`` plays its frames ``first … last`` from output frame ``start``."""

    index: int
    first: int
    last: int
    start: int

    def as_dict(self) -> dict[str, int]:
        """``{"index", "first", "last", "start"}``."""
        return dict(self.__dict__)


@dataclass(frozen=True, eq=False)
class Sequenced:
    """The sequence: its ``clip``, its ``joins`` (join ``k`` leaves clip ``k`` for clip
    ``k + 1``; its layout is in the output's frames) and its ``segments``."""

    clip: Clip
    joins: list[Transition]
    segments: list[Segment]

    def as_dict(self) -> dict[str, Any]:
        """``frames``, ``fps``, ``segments[]`` and per join its ``cut`` and ``entry`` (in the
        clips' own frames and times, at the output's rate), ``blend_s``, ``blend``,
        ``blending``, ``metrics``, ``verdict`` and ``layout`` (output frames)."""
        joins = []
        for k, t in enumerate(self.joins):
            leaving, entering = self.segments[k], self.segments[k + 1]
            cut = t.cut.frame - leaving.start + leaving.first
            joins.append(
                {
                    "cut": {**t.cut.as_dict(), "frame": cut, "time_s": cut / self.clip.fps},
                    "entry": t.entry.as_dict(),
                    "from_clip": leaving.index,
                    "to_clip": entering.index,
                    "blend_s": t.blend_s,
                    "blend": t.result.method,
                    "blending": t.blending.as_dict(),
                    "metrics": t.metrics.as_dict(),
                    "verdict": t.verdict.as_dict(),
                    "layout": t.result.as_dict(),
                }
            )
        return {
            "frames": self.clip.num_frames,
            "fps": self.clip.fps,
            "segments": [s.as_dict() for s in self.segments],
            "joins": joins,
        }


def _chosen(pair: Pair, edit: JoinEdit, earliest: int, search_s: float) -> tuple[Cut, Choice]:
    """The cut (output frames) and entry of one join: the edit's where given, else searched."""
    fps = pair.a.clip.fps
    last_b = pair.b.clip.num_frames - 1
    if edit.entry is not None and not 0 <= edit.entry <= last_b:
        raise MotionCoreError(f"entry frame {edit.entry} is outside the clip's {last_b + 1}")
    if edit.cut is None:
        cut, choice, _, _ = mtp_cut(pair, search_s, DEFAULT_WEIGHTS, earliest=earliest)
        if choice is None:
            choice = entry_for(pair, cut.frame, search_s, DEFAULT_WEIGHTS)
    else:
        frame = edit.cut
        cut = Cut(frame, frame / fps, "mtp", "set by hand", pair.undirected.breakdown(frame))
        choice = entry_for(pair, frame, search_s, DEFAULT_WEIGHTS)
    if edit.entry is not None:
        table = costs(pair.a, [cut.frame], pair.b, [edit.entry])
        choice = Choice(cut.frame, entry_at(table, 0, 0, fps), None)
    return cut, choice


def sequence(
    clips: Ordered[Clip],
    *,
    alpha: float = ALPHA.default,
    theta_max_deg: float = THETA_MAX_DEG.default,
    measure: str = "speed",
    blend: BlendRequest = "auto",
    blend_s: float | None = None,
    blend_min_s: float = BLEND_MIN_S.default,
    blend_max_s: float = BLEND_MAX_S.default,
    edits: Ordered[JoinEdit | None] | None = None,
    search_s: float = 1.0,
) -> Sequenced:
    """Join ``clips`` in order (module docstring).

    Args:
        clips: two or more clips of one skeleton (up to joint order).
        alpha, theta_max_deg, measure: the MTP test of every join.
        blend, blend_s, blend_min_s, blend_max_s: every join's blend request.
        edits: per join (``len(clips) - 1``), a hand-set cut and/or entry, or ``None``.
        search_s: the entry search's first window, seconds.

    Raises:
        MotionCoreError: fewer than 2 or more than :data:`MAX_CLIPS` clips, another
            skeleton, a wrong number of edits, an edited cut before the clip it leaves
            has played :data:`MIN_PLAY_S` or outside it, an entry outside its clip.
    """
    if not 2 <= len(clips) <= MAX_CLIPS:
        raise MotionCoreError(f"a sequence takes 2 to {MAX_CLIPS} clips, got {len(clips)}")
    plan = list(edits) if edits is not None else [None] * (len(clips) - 1)
    if len(plan) != len(clips) - 1:
        raise MotionCoreError(f"{len(clips)} clips have {len(clips) - 1} joins, got {len(plan)}")
    bounds = BlendBounds(blend_min_s, blend_max_s)
    built = features(clips[0])
    segments = [Segment(0, 0, clips[0].num_frames - 1, 0)]
    joins: list[Transition] = []
    earliest = 0
    for k, (clip, edit) in enumerate(zip(clips[1:], plan, strict=True), start=1):
        pair = prepare(built, clip, alpha, theta_max_deg, measure, None, None)
        leaving = segments[-1]
        asked = edit or JoinEdit()
        at = None if asked.cut is None else leaving.start + asked.cut - leaving.first
        if at is not None and not earliest <= at < built.clip.num_frames:
            raise MotionCoreError(
                f"join {k}: cut frame {asked.cut} must leave {MIN_PLAY_S:g} s of clip {k} "
                f"after its entry and lie inside it"
            )
        cut, choice = _chosen(pair, JoinEdit(at, asked.entry), earliest, search_s)
        made = join(pair, cut, choice, blend_s=blend_s, blend=blend, bounds=bounds)
        joins.append(made)
        segments[-1] = Segment(
            leaving.index, leaving.first, cut.frame - leaving.start + leaving.first, leaving.start
        )
        entry = choice.entry.frame
        segments.append(Segment(k, entry, pair.b.clip.num_frames - 1, cut.frame))
        built = features(made.clip, pair.a.roles)
        earliest = made.result.blend_stop + round(MIN_PLAY_S * built.clip.fps)
    return Sequenced(built.clip, joins, segments)
