"""Evaluating a controller (seed 001 §4.3): MotorNerve or the motion-matching baseline,
on scripted command streams and on held-out clips, with :mod:`motioncore.measures`
only (nothing here shares code or thresholds with what it grades).

A *player* maps world commands ``[F, 12]`` (60 Hz) and an optional *opening* (the
recorded frames a play continues from: :attr:`motioncore.motornerve.streams.Stream.opening`)
to a canonical clip of ``F`` frames starting at the origin facing +Z; it must be
deterministic and causal (a frame depends on the commands up to it), so that playing a
prefix gives the prefix. Scripted streams have no opening: a player starts from its
own standing pose. A held-out clip is played on from its own first half second (the
network's history, :data:`OPENING_FRAMES`), driven by its recorded intents from there,
and compared with the mocap that follows (:func:`reference`): the recorded performers
stand and hold their arms in their own ways, which no start pose shared by every stream
could match, and a history frozen on one frame of a walk is none the network ever saw.

Per stream:

* **foot skate per step** (m): the worse foot's median over steps of the slide while
  planted (:func:`motioncore.measures.measure`, floor at 0);
* **lowest foot** (m): minus the deepest a foot point goes under the floor;
* **fastest joint** (°/s): :func:`motioncore.measures.max_joint_speed_degps`;
* **reaction** (frames at 60 Hz) at every change of command: the play against a
  counterfactual play that kept the old command (:func:`motioncore.measures.reaction_frames`:
  the hips' velocity answering the commanded change by 5 cm/s, or for an interaction a
  joint moving 1 cm); an interaction is *answered* when some joint moves
  :data:`ANSWERED_M` from the counterfactual within :data:`REACTION_WINDOW_S`;
* **drift** (m) over the long walk: :func:`motioncore.measures.pose_drift_m`.

Over everything played: the rotation-distribution KL against the held-out mocap
(:func:`motioncore.measures.rotation_kl`: per joint, 36 bins of 5° of the angle of its
local rotation, KL(mocap ‖ played) in nats, the mean over the 20 joints below the
hips); and each stream's own against the same mocap. The scale a single stream is read
on is :func:`mocap_take_kl`: one recorded take against the others reads 2-4 nats (each
performer and release carries its arms, spine and feet its own way, which a pooled
histogram of fourteen takes spreads over), so a stream played from one start pose is
compared with those, not with 0.5.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from motioncore import measures
from motioncore.clip import Clip
from motioncore.motornerve import state
from motioncore.motornerve import streams as streams_mod
from motioncore.motornerve.network import HISTORY, Weights
from motioncore.pfnn.dataset import JOINTS
from motioncore.skeleton import canonical

FloatArray = NDArray[np.float64]
Player = Callable[[FloatArray, Clip | None], Clip]

REACTION_WINDOW_S = 1.0
ANSWERED_M = 0.10
KL_JOINTS = JOINTS[1:]
TARGETS = {
    "foot_skate_per_step_m": 0.03,
    "reaction_frames": 3,
    "rotation_kl": 0.5,
    "max_joint_speed_degps": 1800.0,
    "lowest_foot_m": -0.01,
    "drift_m": 0.05,
}
"""Seed 001 §4.3 and the issue's acceptance: skate ≤ 3 cm per step, reaction ≤ 3 frames,
KL < 0.5, no joint over 1800 °/s, no foot below -1 cm; drift: 5 cm (this project's
reading of "no pose drift")."""


@dataclass(frozen=True)
class StreamResult:
    """Measures of one played stream (module docstring; ``None`` where unmeasurable)."""

    name: str
    seconds: float
    foot_skate_per_step_m: float | None
    lowest_foot_m: float
    max_joint_speed_degps: float
    mean_speed_mps: float
    reactions: tuple[int | None, ...] = ()
    answered: tuple[bool, ...] = ()
    drift_m: float | None = None
    rotation_kl: float | None = None


@dataclass(frozen=True)
class Evaluation:
    """Every stream's result and the totals."""

    streams: tuple[StreamResult, ...]
    rotation_kl: float
    summary: dict[str, float | int | None] = field(default_factory=dict)
    mocap_take_kl: tuple[float, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "streams": [asdict(s) for s in self.streams],
            "rotation_kl": self.rotation_kl,
            "mocap_take_kl": list(self.mocap_take_kl),
            "summary": self.summary,
            "targets": TARGETS,
        }


def _counterfactual(stream: streams_mod.Stream, event: streams_mod.Event) -> FloatArray:
    end = min(event.frame + round(REACTION_WINDOW_S * streams_mod.FPS), len(stream.commands))
    kept = stream.commands[:end].copy()
    kept[event.frame :] = event.before
    return kept


def _reactions(
    player: Player, stream: streams_mod.Stream, played: Clip
) -> tuple[tuple[int | None, ...], tuple[bool, ...]]:
    roles = canonical.roles()
    reactions: list[int | None] = []
    answered: list[bool] = []
    for event in stream.events:
        unchanged = player(_counterfactual(stream, event), stream.opening)
        changed = played.with_arrays(
            played.rotations[: unchanged.num_frames], played.translations[: unchanged.num_frames]
        )
        direction = event.velocity_change
        reactions.append(
            measures.reaction_frames(changed, unchanged, event.frame, roles, direction)
        )
        if direction is None:
            far = measures.reaction_frames(
                changed, unchanged, event.frame, roles, None, pose_threshold_m=ANSWERED_M
            )
            answered.append(far is not None)
    return tuple(reactions), tuple(answered)


def measure_stream(player: Player, stream: streams_mod.Stream, played: Clip) -> StreamResult:
    """The :class:`StreamResult` of ``played`` (``player``'s play of ``stream``)."""
    reactions, answered = _reactions(player, stream, played) if stream.events else ((), ())
    drift = None
    if played.duration_s >= 2.0 * measures.DRIFT_WINDOW_S and stream.name.startswith("steady"):
        drift = measures.pose_drift_m(played, canonical.roles())
    return replace(
        measure_motion(stream.name, played), reactions=reactions, answered=answered, drift_m=drift
    )


def measure_motion(name: str, motion: Clip) -> StreamResult:
    """The measures of ``motion`` that need no player (skate, floor, joint speed, speed)."""
    feet = measures.measure(motion, canonical.roles(), floor_m=0.0)
    steps = [f.slide_per_step_m for f in feet.feet if f.slide_per_step_m is not None]
    hips = motion.translations[:, 0][:, [0, 2]]
    speed = float(np.linalg.norm(hips[-1] - hips[0]) / max(motion.duration_s, 1e-9))
    return StreamResult(
        name,
        motion.duration_s,
        max(steps) if steps else None,
        -feet.penetration_worst_m,
        measures.max_joint_speed_degps(motion),
        speed,
    )


def recorded(recordings: Sequence[Recording]) -> dict[str, object]:
    """The held-out takes themselves (after their openings, as the plays are compared
    with them) measured as a play is, each one's rotation KL against the others: what
    the targets read on the recorded motion (its own foot slide by the measures' planted
    test, the glitches of its release)."""
    last = OPENING_FRAMES - 1
    kept = [r for r in recordings if r.clip.num_frames > OPENING_FRAMES]
    takes = mocap_take_kl(reference(kept))
    results = [
        replace(
            measure_motion(
                r.name,
                r.clip.with_arrays(r.clip.rotations[last:], r.clip.translations[last:]),
            ),
            rotation_kl=kl,
        )
        for r, kl in zip(kept, takes or [None] * len(kept), strict=True)
    ]
    skate = [r.foot_skate_per_step_m for r in results if r.foot_skate_per_step_m is not None]
    return {
        "streams": [asdict(r) for r in results],
        "summary": {
            "foot_skate_per_step_m": max(skate) if skate else None,
            "takes_within_skate_target": sum(x <= TARGETS["foot_skate_per_step_m"] for x in skate),
            "lowest_foot_m": min((r.lowest_foot_m for r in results), default=None),
            "max_joint_speed_degps": max((r.max_joint_speed_degps for r in results), default=None),
            "takes_within_joint_speed_target": sum(
                r.max_joint_speed_degps <= TARGETS["max_joint_speed_degps"] for r in results
            ),
            "takes": len(results),
            "mocap_take_rotation_kl_median": float(np.median(takes)) if takes else None,
        },
        "targets": TARGETS,
    }


def evaluate(
    player: Player,
    streams: Sequence[streams_mod.Stream],
    reference: Sequence[FloatArray],
    progress: Callable[[str], None] | None = None,
) -> Evaluation:
    """Play every stream, measure it, and compare everything played with the
    ``reference`` mocap rotations (``[F, J, 4]`` each, canonical skeleton)."""
    results: list[StreamResult] = []
    played_rotations: list[FloatArray] = []
    for stream in streams:
        if progress is not None:
            progress(stream.name)
        played = player(stream.commands, stream.opening)
        own = measures.rotation_kl(reference, [played.rotations], KL_JOINTS)
        results.append(replace(measure_stream(player, stream, played), rotation_kl=own))
        played_rotations.append(played.rotations)
    kl = measures.rotation_kl(reference, played_rotations, KL_JOINTS)
    takes = mocap_take_kl(reference)
    return Evaluation(tuple(results), kl, summarise(results, kl, takes), takes)


def mocap_take_kl(reference: Sequence[FloatArray]) -> tuple[float, ...]:
    """Each take of ``reference`` against the others (leave one out), nats: what the
    rotation KL reads for one recorded performer, the scale of a single stream's."""
    if len(reference) < 2:
        return ()
    return tuple(
        measures.rotation_kl(
            [other for j, other in enumerate(reference) if j != i], [take], KL_JOINTS
        )
        for i, take in enumerate(reference)
    )


def summarise(
    results: Sequence[StreamResult], kl: float, mocap_takes: Sequence[float] = ()
) -> dict[str, float | int | None]:
    """Worst and typical values over the streams (what the acceptance table shows)."""
    own = [r.rotation_kl for r in results if r.rotation_kl is not None]
    skate = [r.foot_skate_per_step_m for r in results if r.foot_skate_per_step_m is not None]
    moving = [x for r in results for x, a in _velocity_reactions(r) if a]
    posing = [x for r in results for x, a in _velocity_reactions(r) if not a]
    answered = [a for r in results for a in r.answered]
    drift = [r.drift_m for r in results if r.drift_m is not None]
    return {
        "foot_skate_per_step_m": max(skate) if skate else None,
        "lowest_foot_m": min(r.lowest_foot_m for r in results),
        "max_joint_speed_degps": max(r.max_joint_speed_degps for r in results),
        "reaction_frames_median": _median(moving),
        "reaction_frames_max": _max(moving),
        "interaction_reaction_frames_median": _median(posing),
        "interaction_reaction_frames_max": _max(posing),
        "interactions_answered": sum(answered),
        "interactions": len(answered),
        "drift_m": max(drift) if drift else None,
        "rotation_kl": kl,
        "stream_rotation_kl_median": float(np.median(own)) if own else None,
        "mocap_take_rotation_kl_median": float(np.median(mocap_takes)) if mocap_takes else None,
    }


def _velocity_reactions(result: StreamResult) -> list[tuple[int | None, bool]]:
    """``(reaction, is a velocity command)`` per event: interactions are the events of
    the stream that has ``answered`` entries."""
    by_pose = bool(result.answered)
    return [(r, not by_pose) for r in result.reactions]


def _median(values: list[int | None]) -> float | None:
    """The median reaction, a missing one (never reacted) counting as infinitely late."""
    if not values:
        return None
    as_float = [float("inf") if v is None else float(v) for v in values]
    return float(np.median(as_float))


def _max(values: list[int | None]) -> float | None:
    if not values:
        return None
    return (
        float("inf")
        if any(v is None for v in values)
        else float(max(v for v in values if v is not None))
    )


@dataclass(frozen=True, eq=False)
class Recording:
    """A held-out corpus clip prepared for MotorNerve (canonical, 60 Hz) with its own
    intents ``[F, 12]`` and facing ``[F]`` (radians)."""

    name: str
    clip: Clip
    intents: FloatArray
    facing: FloatArray


def held_out(data_dir: Path, split: str = "test") -> list[Recording]:
    """The corpus clips of ``split`` (by take, as :func:`motioncore.motornerve.dataset.build`
    assigns them), as recorded (not mirrored, not sped up), from their first frame past
    the glitches a take opens with (:func:`motioncore.motornerve.dataset.clean_start`: a
    rest pose before the motion is no pose to play on from, nor mocap to compare with)."""
    from motioncore.motornerve import dataset
    from motioncore.pfnn.dataset import assign_splits

    sources, _ = dataset.corpus_sources(data_dir)
    splits = assign_splits(sorted({s.take for s in sources}))
    out: list[Recording] = []
    for source in sources:
        if splits[source.take] != split:
            continue
        prepared = dataset.prepare(source.clip)
        first = dataset.clean_start(dataset.sequence(source.path, prepared, source.interact))
        clip = prepared.with_arrays(prepared.rotations[first:], prepared.translations[first:])
        recorded = dataset.sequence(source.path, clip, source.interact)
        out.append(Recording(source.path, clip, recorded.intents, state.facing(clip)))
    return out


OPENING_FRAMES = state.STEP_FRAMES * (HISTORY - 1) + 1
"""The recorded frames (60 Hz) a held-out play is given: the network's whole history
at 30 Hz; the play's first frame is the last of them."""


def recording_streams(recordings: Sequence[Recording]) -> list[streams_mod.Stream]:
    """Each recording (of more than :data:`OPENING_FRAMES` frames) as the stream of its
    own commands after its opening, with the opening."""
    last = OPENING_FRAMES - 1
    return [
        streams_mod.of_recording(
            r.name,
            r.intents[last:],
            r.facing[last:],
            r.clip.with_arrays(
                r.clip.rotations[:OPENING_FRAMES], r.clip.translations[:OPENING_FRAMES]
            ),
        )
        for r in recordings
        if r.clip.num_frames > OPENING_FRAMES
    ]


def reference(recordings: Sequence[Recording]) -> list[FloatArray]:
    """The mocap rotations ``[F, J, 4]`` the held-out plays are compared with: each
    recording from its opening's last frame on (what its stream plays)."""
    last = OPENING_FRAMES - 1
    return [r.clip.rotations[last:] for r in recordings if r.clip.num_frames > OPENING_FRAMES]


def history(opening: Clip) -> FloatArray:
    """``[H, state.SIZE]`` an opening's states at 30 Hz, the network's history to play on
    from (its last state the play's first frame)."""
    return state.encode(opening)[0][:: state.STEP_FRAMES]


def motornerve_player(weights: Weights, *, lock_feet: bool = True) -> Player:
    """MotorNerve as a player (:func:`motioncore.motornerve.runtime.play`, its feet
    locked unless ``lock_feet`` is false): from the weights' standing state, or with the
    opening's states at 30 Hz as its history (the play's first frame its last)."""
    from motioncore.motornerve import runtime

    def play(commands: FloatArray, opening: Clip | None) -> Clip:
        start = None if opening is None else history(opening)
        return runtime.play(weights, commands, start, lock_feet=lock_feet).clip

    return play


def matching_player(recordings: Sequence[Recording]) -> Player:
    """The motion-matching baseline (:mod:`motioncore.motornerve.matching`) as a player:
    its database is ``recordings`` (the training clips, as recorded), and it reads the
    world commands in the character's heading frame, as MotorNerve's runtime does; given
    an opening, it starts on the database frame nearest its last pose."""
    from motioncore.motornerve import matching
    from motioncore.motornerve.motion_database import Database

    database = Database.build([(r.name, r.clip, r.intents) for r in recordings])

    def play(commands: FloatArray, opening: Clip | None) -> Clip:
        start = None if opening is None else matching.nearest_pose(database, opening)
        return matching.drive(database, commands, world=True, start=start)

    return play
