"""Playing MotorNerve (seed 001 §3.4, §6): intents in, 60 Hz motion out.

* **30 Hz inference, 60 Hz motion**: the network steps every
  :data:`~motioncore.motornerve.state.STEP_FRAMES` frames; the frame between two steps
  is interpolated (rotations slerped halfway, the root moved by the step's velocity).
* **Root**: the root integrates the predicted ground velocity and turn rate, so its
  path is continuous. As PFNN's runtime blends its predicted trajectory with the
  user's, each step moves them part of the way to what the intent asks
  (:func:`steer`); the network reads the steered root back, and its poses follow. A
  step may not change the velocity by more than
  :data:`MAX_ACCELERATION_MPS2` nor the turn rate by more than
  :data:`MAX_TURN_ACCELERATION_RADPS2` (the jumps a network can make, not a person).
* **Blend on sharp changes**: when the intent changes sharply
  (:func:`sharp_change`), the pose eases from the last shown one to the network's over
  :data:`BLEND_S` (the seed's 100–200 ms): each step mixes the last shown pose and the
  network's with a weight rising linearly to 1 (so the ease compounds, and lasts
  ``ceil(BLEND_S / STEP_S)`` steps). The shown state is what the network reads back.
  A play that goes on from recorded states eases out of the last one the same way:
  the network's first step from mocap is a handover too (from a held-out walk's
  opening it swung an arm at 2,317 °/s in one frame).
* **Gate** (a small state machine in front of the network, seed §6): an ``interact``
  asked while moving faster than :data:`INTERACT_BELOW_MPS` is queued — the network
  is asked to stop first and gets the interaction once the character is slow enough,
  standing (an interaction's speed is 0: every one in the data is done standing);
  speeds are clamped to :data:`MAX_SPEED_MPS`.

Shapes: intents ``[F, 12]`` at 60 Hz; states ``[S]``; metres, seconds, radians.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from motioncore import quat
from motioncore.clip import Clip
from motioncore.motornerve import foot_lock, intent, state
from motioncore.motornerve.network import Stepper, Weights
from motioncore.skeleton import canonical

FloatArray = NDArray[np.float64]

VELOCITY_STEER = 0.5
TURN_STEER = 0.5
"""Share of the way from the predicted root velocity and turn rate to the asked ones,
each step (:func:`steer`)."""
STAND_BELOW_MPS = 0.1
"""Asked to stand (a wanted speed of 0), a steered root velocity slower than this is
none: the network's small drift while standing (about 2 cm/s, which carried the
character half a metre over 25 s of pick-ups) stops."""
MAX_ACCELERATION_MPS2 = 12.0
MAX_TURN_ACCELERATION_RADPS2 = 60.0
BLEND_S = 0.15
SHARP_SPEED_MPS = 0.6
"""A change of wanted speed at least this large is sharp…"""
SHARP_TURN_RAD = np.radians(45.0)
"""…and so is a turn of the wanted direction or facing this large, or a new action."""
INTERACT_BELOW_MPS = 0.6
MAX_SPEED_MPS = intent.MAX_SPEED_MPS
INTERACT = intent.ACTIONS.index("interact")
PROGRESS_STEPS = 300


def sharp_change(before: FloatArray, after: FloatArray) -> bool:
    """Whether going from intent ``before`` to ``after`` (``[12]`` each) is sharp."""
    if np.argmax(before[intent.ACTION]) != np.argmax(after[intent.ACTION]):
        return True
    if abs(after[intent.SPEED] - before[intent.SPEED]) >= SHARP_SPEED_MPS:
        return True
    turns = [
        float(angle_2d(before[intent.DIRECTION], after[intent.DIRECTION])),
        float(angle_2d(before[intent.FACING], after[intent.FACING])),
    ]
    return bool(max(turns) >= SHARP_TURN_RAD)


def angle_2d(a: FloatArray, b: FloatArray) -> float:
    """Angle between two ground vectors (0 when either is zero), radians."""
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na < 1e-9 or nb < 1e-9:
        return 0.0
    return float(np.arccos(np.clip(np.dot(a, b) / (na * nb), -1.0, 1.0)))


@dataclass
class Gate:
    """The state machine in front of the network (module docstring)."""

    queued: bool = False

    def admit(self, wanted: FloatArray, speed_mps: float) -> FloatArray:
        """The intent the network gets for ``wanted`` when the character moves at
        ``speed_mps``."""
        out = wanted.copy()
        if out[intent.SPEED] > MAX_SPEED_MPS:
            out[intent.SPEED] = MAX_SPEED_MPS
        interacting = int(np.argmax(out[intent.ACTION])) == INTERACT
        self.queued = interacting and speed_mps >= INTERACT_BELOW_MPS
        if self.queued:
            return intent.make(np.zeros(2), 0.0, 0.0, intent.ACTIONS.index("idle"))
        if interacting:  # an interaction is done standing (as every one in the data is)
            out[intent.DIRECTION], out[intent.SPEED] = 0.0, 0.0
        return out


def steer(predicted: FloatArray, given: FloatArray) -> None:
    """Move the predicted root velocity and turn rate (in place) :data:`VELOCITY_STEER`
    and :data:`TURN_STEER` of the way to what the intent ``given`` asks: its direction
    times its speed, and its facing turned in :data:`~motioncore.motornerve.intent.HORIZON_S`;
    asked to stand, a velocity below :data:`STAND_BELOW_MPS` is none."""
    wanted = given[intent.DIRECTION] * given[intent.SPEED]
    velocity = predicted[state.VELOCITY]
    predicted[state.VELOCITY] = velocity + VELOCITY_STEER * (wanted - velocity)
    standing = given[intent.SPEED] == 0.0
    if standing and np.linalg.norm(predicted[state.VELOCITY]) < STAND_BELOW_MPS:
        predicted[state.VELOCITY] = 0.0
    turn = np.arctan2(given[intent.FACING.start], given[intent.FACING.start + 1]) / intent.HORIZON_S
    predicted[state.TURN] += TURN_STEER * (turn - predicted[state.TURN])


def _limit(previous: FloatArray, wanted: FloatArray, most: float) -> FloatArray:
    change = wanted - previous
    size = float(np.linalg.norm(change))
    return wanted if size <= most else previous + change * (most / size)


def _slerp_state(a: FloatArray, b: FloatArray, t: float) -> FloatArray:
    """States ``[..., S]`` mixed: rotations slerped, the rest linear (``t`` 0 gives
    ``a``)."""
    out = (1.0 - t) * a + t * b
    qa, qb = state.joint_rotations(a), state.joint_rotations(b)
    return state.with_rotations(out, quat.slerp(qa, qb, np.full(qa.shape[:-1], t)))


@dataclass
class Step:
    """What one network step did: the shown state, contact probabilities, the intent
    the network got and whether the gate queued an interaction."""

    state: FloatArray
    contacts: FloatArray
    given: FloatArray
    queued: bool
    ground: FloatArray
    facing: float


@dataclass
class Controller:
    """One character driven step by step (30 Hz) by world commands
    (:func:`motioncore.motornerve.intent.localise`); it keeps its own root on the
    ground (``ground`` m, ``facing`` rad), starting at the origin facing +Z. ``start``:
    a state ``[S]`` held for the whole history (default :func:`start_state`), or past
    states ``[H, S]`` at 30 Hz, oldest first (fewer than the network's history: the
    oldest held before them; the first steps from those blend out of the last,
    as on a sharp change)."""

    weights: Weights
    start: FloatArray | None = None
    stepper: Stepper = field(init=False)
    gate: Gate = field(default_factory=Gate)
    last_intent: FloatArray = field(init=False)
    blend_left_s: float = 0.0
    ground: FloatArray = field(default_factory=lambda: np.zeros(2))
    facing: float = 0.0

    def __post_init__(self) -> None:
        self.stepper = Stepper(self.weights)
        history = np.atleast_2d(start_state(self.weights) if self.start is None else self.start)
        self.stepper.fill(history[0])
        for past in history[1:]:
            self.stepper.push(past)
        if len(history) > 1:
            self.blend_left_s = BLEND_S
        self.last_intent = intent.make(np.zeros(2), 0.0, 0.0, 0)

    @property
    def current(self) -> FloatArray:
        return self.stepper.states[-1]

    def step(self, command: FloatArray) -> Step:
        """Advance one step towards the world ``command [12]``."""
        last = self.current
        speed = float(np.linalg.norm(last[state.VELOCITY]))
        wanted = intent.localise(command, self.facing)
        given = self.gate.admit(wanted, speed)
        if sharp_change(self.last_intent, given):
            self.blend_left_s = BLEND_S
        self.last_intent = given
        predicted, contacts = self.stepper.predict(given)
        steer(predicted, given)
        predicted[state.VELOCITY] = _limit(
            last[state.VELOCITY], predicted[state.VELOCITY], MAX_ACCELERATION_MPS2 * state.STEP_S
        )
        most_turn = MAX_TURN_ACCELERATION_RADPS2 * state.STEP_S
        predicted[state.TURN] = last[state.TURN] + np.clip(
            predicted[state.TURN] - last[state.TURN], -most_turn, most_turn
        )
        shown = predicted
        if self.blend_left_s > 0.0:
            weight = 1.0 - (self.blend_left_s - state.STEP_S) / BLEND_S
            shown = _slerp_state(last, predicted, float(np.clip(weight, 0.0, 1.0)))
            shown[state.VELOCITY], shown[state.TURN] = (
                predicted[state.VELOCITY],
                predicted[state.TURN],
            )
            self.blend_left_s = max(self.blend_left_s - state.STEP_S, 0.0)
        shown = state.renormalised(shown)
        self.stepper.push(shown)
        self.ground = self.ground + state.rotate_ground(
            shown[state.VELOCITY] * state.STEP_S, np.asarray(self.facing)
        )
        self.facing += float(shown[state.TURN]) * state.STEP_S
        ground = self.ground.copy()
        return Step(shown.copy(), contacts, given, self.gate.queued, ground, self.facing)


def start_state(weights: Weights) -> FloatArray:
    """The standing state the weights start from (saved with them at training), else
    the training mean standing still."""
    saved = weights.meta.get("start_state")
    out = np.asarray(saved if saved is not None else weights.state_mean, dtype=np.float64)
    out = out.copy()
    out[state.VELOCITY], out[state.TURN] = 0.0, 0.0
    return state.renormalised(out)


@dataclass(frozen=True, eq=False)
class Played:
    """A played intent stream: the canonical clip (60 Hz; its feet locked unless asked
    not to), per frame the intent the network got ``[F, 12]``, the contact
    probabilities ``[F, 2]`` of the step whose state the frame shows or leads into,
    whether an interaction was queued ``[F]``, and the clip as the network made it
    (``raw``, before the foot lock)."""

    clip: Clip
    given: FloatArray
    contacts: FloatArray
    queued: NDArray[np.bool_]
    raw: Clip


def play(
    weights: Weights,
    commands: FloatArray,
    start: FloatArray | None = None,
    progress: Callable[[float], None] | None = None,
    *,
    lock_feet: bool = True,
) -> Played:
    """Play world ``commands [F, 12]`` (60 Hz; :func:`motioncore.motornerve.intent.command`)
    from ``start`` (:class:`Controller`'s: a standing state by default, or a recorded
    history whose last state the clip's first frame shows) at the origin facing +Z; the clip has
    ``F`` frames, its feet locked by the contact head
    (:func:`motioncore.motornerve.foot_lock.lock`) unless ``lock_feet`` is false.
    ``progress(fraction)`` every :data:`PROGRESS_STEPS` steps."""
    frames = len(commands)
    controller = Controller(weights, start)
    first = controller.current
    steps: list[Step] = []
    for f in range(0, frames, state.STEP_FRAMES):
        steps.append(controller.step(commands[f]))
        if progress is not None and len(steps) % PROGRESS_STEPS == 0:
            progress(f / frames)
    shown = np.stack([first, *(s.state for s in steps)])
    ground30 = np.stack([np.zeros(2), *(s.ground for s in steps)])
    face30 = np.array([0.0, *(s.facing for s in steps)])
    states60, ground60, face60 = _to_60hz(shown, ground30, face30)
    raw = state.to_clip(states60[:frames], ground60[:frames], face60[:frames])
    per_step = np.repeat(np.arange(len(steps)), state.STEP_FRAMES)[:frames]
    contacts = np.stack([s.contacts for s in steps])[contact_steps(frames)]
    clip = foot_lock.lock(raw, contacts, canonical.roles()) if lock_feet else raw
    return Played(
        clip,
        np.stack([s.given for s in steps])[per_step],
        contacts,
        np.array([s.queued for s in steps])[per_step],
        raw,
    )


def contact_steps(frames: int) -> NDArray[np.intp]:
    """``[frames]`` the step whose contact probabilities belong to each 60 Hz frame:
    frame ``2k + 2`` shows step ``k``'s state and ``2k + 1`` leads into it (the first
    two frames, before any step, take step 0's)."""
    index = (np.arange(frames) + 1) // state.STEP_FRAMES - 1
    return np.maximum(index, 0)


def _to_60hz(
    shown: FloatArray, ground: FloatArray, face: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """30 Hz states/paths ``[N + 1, …]`` to 60 Hz ``[2N + 1, …]`` (midpoints between)."""
    mids = _slerp_state(shown[:-1], shown[1:], 0.5)
    states = np.empty((2 * len(shown) - 1, shown.shape[1]))
    states[0::2], states[1::2] = shown, mids
    ground60 = np.empty((len(states), 2))
    ground60[0::2], ground60[1::2] = ground, 0.5 * (ground[:-1] + ground[1:])
    face60 = np.empty(len(states))
    face60[0::2], face60[1::2] = face, 0.5 * (face[:-1] + face[1:])
    return states, ground60, face60
