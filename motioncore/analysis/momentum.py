"""Per-frame momentum measures of a clip: speed, tangential acceleration, energy, PCA.

Seed 000 §2.2 names the reduced phase-space features (speed ``|q̇|``, kinetic
energy ``½ q̇ᵀMq̇``, the sign of ``q̇·q̈``, root velocity and angular velocity);
§3.2 differentiates with central differences or a Savitzky-Golay filter after an
optional low-pass; §3.3 lists the three scalar curves a detector may use: speed
magnitude, kinetic energy and the first principal component of the velocities.

Conventions: metres, seconds, radians, Y up, quaternions ``(w, x, y, z)``; all
vectors are in the world frame. ``F`` frames, ``J`` joints, ``P`` mass points.

Mass model: de Leva (1996), "Adjustments to Zatsiorsky-Seluyanov's segment inertia
parameters", J. Biomech. 29(9):1223-1230, male mass fractions and longitudinal
COM positions (from the proximal joint). Simplifications, because skeletons lack
de Leva's landmarks: the head+neck COM sits on the head joint, the hand COM on
the wrist (hand joint), the foot COM halfway from the ankle to the toe joint (on
the ankle when there is no toe), and the trunk (which also holds the clavicles)
is a uniform rod along hips → spine chain → neck (or head), its mass split over
the bones in proportion to their rest lengths. A segment whose proximal role is
unresolved is dropped and the remaining masses are renormalised to sum to 1.
Kinetic energy is translational only (``½ Σ mᵢ|vᵢ|²`` per kg); segment rotation
is neglected.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from itertools import pairwise
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.signal import savgol_filter

from motioncore import fk, quat
from motioncore.clean import smooth
from motioncore.clip import Clip, Skeleton
from motioncore.errors import SkeletonError
from motioncore.parameters import DEFAULT_MEASURE, Measure
from motioncore.skeleton import JointRoles, infer

FloatArray = NDArray[np.float64]
Derivative = Literal["savgol", "central"]

_EPS_M_PER_S = 1e-9

MIN_PEAK: dict[str, float] = {"speed": 0.1, "energy": 0.005, "pca": 0.1}
"""Per momentum measure (:data:`motioncore.parameters.MEASURE`), the peak (m/s, J/kg,
m/s) below which a motion never builds momentum (seed 000 §6.2 low-speed motion; ours:
0.1 m/s, and ½·0.1² J/kg for energy)."""


class Segment(NamedTuple):
    """One body segment: its mass fraction and where its COM lies.

    ``com = proximal + com_fraction * (distal - proximal)``; ``distal=None`` puts it
    on the proximal joint.
    """

    name: str
    mass_fraction: float
    proximal: str
    distal: str | None
    com_fraction: float


def _limbs(side: str) -> tuple[Segment, ...]:
    s = side
    return (
        Segment(f"{s}_upper_arm", 0.0271, f"{s}_upper_arm", f"{s}_forearm", 0.5772),
        Segment(f"{s}_forearm", 0.0162, f"{s}_forearm", f"{s}_hand", 0.4574),
        Segment(f"{s}_hand", 0.0061, f"{s}_hand", None, 0.0),
        Segment(f"{s}_thigh", 0.1416, f"{s}_upper_leg", f"{s}_lower_leg", 0.4095),
        Segment(f"{s}_shank", 0.0433, f"{s}_lower_leg", f"{s}_foot", 0.4459),
        Segment(f"{s}_foot", 0.0137, f"{s}_foot", f"{s}_toe", 0.5),
    )


SEGMENTS: tuple[Segment, ...] = (
    Segment("head", 0.0694, "head", None, 0.0),
    Segment("trunk", 0.4346, "hips", None, 0.0),  # spread over the spine chain
    *_limbs("left"),
    *_limbs("right"),
)
"""de Leva (1996) male segment table; the mass fractions sum to 1."""


@dataclass(frozen=True, eq=False)
class MassTable:
    """Mass points as linear combinations of joint positions.

    Attributes:
        weights: ``[P]`` mass fractions, summing to 1 (renormalised after drops).
        matrix: ``[P, J]`` rows summing to 1: ``points = matrix @ joints``.
        segments: ``[P]`` segment name of each point (the trunk has several).
        dropped: segments whose proximal role is unresolved.
        approximated: segments whose distal role is unresolved (COM on the proximal joint).
    """

    weights: FloatArray
    matrix: FloatArray
    segments: tuple[str, ...]
    dropped: tuple[str, ...]
    approximated: tuple[str, ...]


def mass_table(skeleton: Skeleton, roles: JointRoles | None = None) -> MassTable:
    """The :data:`SEGMENTS` table resolved on ``skeleton`` (roles inferred if ``None``).

    Raises:
        SkeletonError: no segment resolves (not a humanoid rig).
    """
    roles = infer(skeleton) if roles is None else roles
    rows: list[FloatArray] = []
    weights: list[float] = []
    names: list[str] = []
    dropped: list[str] = []
    approximated: list[str] = []
    for seg in SEGMENTS:
        prox = roles.get(seg.proximal)
        if prox is None:
            dropped.append(seg.name)
            continue
        if seg.name == "trunk":
            seg_rows, fractions = _trunk(skeleton, roles, prox)
        else:
            dist = None if seg.distal is None else roles.get(seg.distal)
            if seg.distal is not None and dist is None:
                approximated.append(seg.name)
            seg_rows, fractions = [_point(skeleton, prox, dist, seg.com_fraction)], [1.0]
        rows += seg_rows
        weights += [seg.mass_fraction * f for f in fractions]
        names += [seg.name] * len(seg_rows)
    if not rows:
        raise SkeletonError("no body segment resolves: momentum needs joint roles")
    w = np.asarray(weights)
    return MassTable(w / w.sum(), np.stack(rows), tuple(names), tuple(dropped), tuple(approximated))


def _point(skeleton: Skeleton, prox: int, dist: int | None, fraction: float) -> FloatArray:
    """``[J]`` row placing a point at ``fraction`` of the way from ``prox`` to ``dist``."""
    row = np.zeros(skeleton.num_joints)
    if dist is None:
        row[prox] = 1.0
    else:
        row[prox] += 1.0 - fraction
        row[dist] += fraction
    return row


def _trunk(
    skeleton: Skeleton, roles: JointRoles, hips: int
) -> tuple[list[FloatArray], list[float]]:
    """Bone-midpoint rows and length-proportional mass shares of the trunk rod."""
    top = roles.get("neck")
    top = roles.get("head") if top is None else top
    chain = [hips, *roles.spine_chain, *([] if top is None else [top])]
    if len(chain) == 1:
        return [_point(skeleton, hips, None, 0.0)], [1.0]
    rest = fk.rest_positions(skeleton.offsets, skeleton.parents)[chain]
    lengths = np.linalg.norm(np.diff(rest, axis=0), axis=-1)
    shares = (
        lengths / lengths.sum() if lengths.sum() > 0 else np.full(len(lengths), 1 / len(lengths))
    )
    rows = [_point(skeleton, a, b, 0.5) for a, b in pairwise(chain)]
    return rows, [float(s) for s in shares]


def derivative(
    x: FloatArray,
    fps: float,
    *,
    order: int = 1,
    method: Derivative = "savgol",
    window_s: float = 0.2,
    polyorder: int = 3,
) -> FloatArray:
    """``order``-th time derivative of ``x [F, ...]`` (units of ``x`` per second^order).

    ``savgol``: Savitzky-Golay over ``window_s`` seconds (odd frame count, at least
    ``polyorder + 2``); clips shorter than the window, and ``central``, use
    repeated central differences (one-sided at the ends). One frame gives zeros.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] < 2:
        return np.zeros_like(x)
    window = max(_odd(window_s * fps), _odd(polyorder + 1))
    if method == "savgol" and polyorder >= order and window <= x.shape[0]:
        out = savgol_filter(
            x, window, polyorder, deriv=order, delta=1.0 / fps, axis=0, mode="interp"
        )
        return np.asarray(out, dtype=np.float64)
    for _ in range(order):
        x = np.gradient(x, 1.0 / fps, axis=0)
    return x


def _odd(frames: float) -> int:
    n = max(round(frames), 1)
    return n if n % 2 == 1 else n + 1


def angular_velocity(
    q: FloatArray,
    fps: float,
    *,
    method: Derivative = "savgol",
    window_s: float = 0.2,
    polyorder: int = 3,
) -> FloatArray:
    """World angular velocities ``[F, 3]`` (rad/s) of global quaternions ``q [F, 4]``.

    ``ω = 2 vec(q̇ q*) / |q|²`` on the unrolled quaternions, ``q̇`` by
    :func:`derivative` with ``method``, ``window_s`` (seconds) and ``polyorder``.
    """
    q = quat.unroll(q, axis=0)
    dq = derivative(q, fps, method=method, window_s=window_s, polyorder=polyorder)
    w = 2.0 * quat.mul(dq, quat.conjugate(q))[..., 1:]
    return np.asarray(w / np.sum(q * q, axis=-1, keepdims=True), dtype=np.float64)


@dataclass(frozen=True, eq=False)
class Momentum:
    """Momentum curves of one clip, all ``[F]`` or ``[F, 3]``, world frame.

    Attributes:
        fps: frame rate, Hz.
        root_velocity: ``[F, 3]`` m/s of the pelvis (hips role, else the first root).
        com_velocity: ``[F, 3]`` m/s of the whole-body centre of mass.
        speed: ``[F]`` m/s, ``|v|`` of the COM (or root, see ``speed_of``).
        tangential_acceleration: ``[F]`` m/s², ``d|v|/dt = v·a/|v|`` (0 where ``v = 0``).
        angular_velocity: ``[F, 3]`` rad/s of the pelvis.
        kinetic_energy: ``[F]`` J/kg, translational ``½ Σ mᵢ|vᵢ|²`` (masses sum to 1).
        pca: ``[F]`` m/s, joint velocities projected on their first principal axis
            over ``√J`` (uncentred, so steady motion counts); sign so it correlates
            positively with ``speed``.
        pca_explained: share of the velocity second moment on that axis, 0-1.
        speed_of: ``"com"`` or ``"root"``.
        mass: the resolved mass table (dropped segments are reported there).
    """

    fps: float
    root_velocity: FloatArray
    com_velocity: FloatArray
    speed: FloatArray
    tangential_acceleration: FloatArray
    angular_velocity: FloatArray
    kinetic_energy: FloatArray
    pca: FloatArray
    pca_explained: float
    speed_of: Literal["com", "root"]
    mass: MassTable

    def as_dict(self) -> dict[str, object]:
        """JSON-able dict; units are in the keys."""
        return {
            "fps": self.fps,
            "speed_of": self.speed_of,
            "root_velocity_m_per_s": self.root_velocity.tolist(),
            "com_velocity_m_per_s": self.com_velocity.tolist(),
            "speed_m_per_s": self.speed.tolist(),
            "tangential_acceleration_m_per_s2": self.tangential_acceleration.tolist(),
            "angular_velocity_rad_per_s": self.angular_velocity.tolist(),
            "kinetic_energy_j_per_kg": self.kinetic_energy.tolist(),
            "pca_m_per_s": self.pca.tolist(),
            "pca_explained": self.pca_explained,
            "mass_dropped": list(self.mass.dropped),
            "mass_approximated": list(self.mass.approximated),
        }


def measure(
    clip: Clip,
    *,
    roles: JointRoles | None = None,
    speed_of: Literal["com", "root"] = "com",
    method: Derivative = "savgol",
    window_s: float = 0.2,
    polyorder: int = 3,
    cutoff_hz: float | None = None,
) -> Momentum:
    """Momentum curves of ``clip`` (not modified).

    Args:
        clip: the clip; roles are inferred from its skeleton when ``roles`` is ``None``.
        speed_of: whose speed and tangential acceleration: ``"com"`` or ``"root"``.
        method, window_s, polyorder: differentiation (seed 000 §3.2; see
            :func:`derivative`); the window is in seconds and is ours, the seed gives none.
        cutoff_hz: optional zero-phase Butterworth low-pass of the world positions
            and quaternions before differentiating (seed 000 §3.2 step 1), Hz.

    Raises:
        SkeletonError: no body segment resolves.
    """
    roles = infer(clip.skeleton) if roles is None else roles
    table = mass_table(clip.skeleton, roles)
    g_quat, pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    root = roles.get("hips")
    root = int(clip.skeleton.roots[0]) if root is None else root
    q_root = quat.unroll(g_quat[:, root], axis=0)
    if cutoff_hz is not None:
        pos = smooth.butterworth(pos, clip.fps, cutoff_hz=cutoff_hz)
        q_root = smooth.butterworth(q_root, clip.fps, cutoff_hz=cutoff_hz)
    diff = partial(derivative, fps=clip.fps, method=method, window_s=window_s, polyorder=polyorder)
    vel, acc = diff(pos), diff(pos, order=2)
    point_vel = np.einsum("pj,fjc->fpc", table.matrix, vel)
    com_vel = np.einsum("p,fpc->fc", table.weights, point_vel)
    com_acc = np.einsum("p,pj,fjc->fc", table.weights, table.matrix, acc)
    v, a = (vel[:, root], acc[:, root]) if speed_of == "root" else (com_vel, com_acc)
    speed = np.linalg.norm(v, axis=-1)
    tangential = np.sum(v * a, axis=-1) / np.maximum(speed, _EPS_M_PER_S)
    energy = 0.5 * np.einsum("p,fp->f", table.weights, np.sum(point_vel**2, axis=-1))
    pca, explained = _first_component(vel, speed)
    return Momentum(
        fps=clip.fps,
        root_velocity=vel[:, root],
        com_velocity=com_vel,
        speed=speed,
        tangential_acceleration=np.where(speed > _EPS_M_PER_S, tangential, 0.0),
        angular_velocity=angular_velocity(
            q_root, clip.fps, method=method, window_s=window_s, polyorder=polyorder
        ),
        kinetic_energy=energy,
        pca=pca,
        pca_explained=explained,
        speed_of=speed_of,
        mass=table,
    )


def _first_component(vel: FloatArray, speed: FloatArray) -> tuple[FloatArray, float]:
    """Projection ``[F]`` of stacked velocities ``[F, J, 3]`` on their first axis, and its share."""
    stacked = vel.reshape(vel.shape[0], -1)
    values, vectors = np.linalg.eigh(stacked.T @ stacked)
    total = float(values.sum())
    proj = stacked @ vectors[:, -1] / np.sqrt(vel.shape[1])
    corr = np.corrcoef(proj, speed)[0, 1] if np.std(proj) > 0 and np.std(speed) > 0 else np.nan
    flip = corr < 0 if np.isfinite(corr) else proj.sum() < 0
    return (-proj if flip else proj), (float(values[-1]) / total if total > 0 else 0.0)


def curve(momentum: Momentum, measure: Measure = DEFAULT_MEASURE) -> FloatArray:
    """The scalar ``[F]`` curve a detector uses (seed 000 §3.3).

    ``"speed"``: m/s; ``"energy"``: kinetic energy, J/kg; ``"pca"``: magnitude of the
    first principal component of the joint velocities, m/s (the projection is signed;
    retention needs a magnitude). Returns a copy.
    """
    curves = {
        "speed": momentum.speed,
        "energy": momentum.kinetic_energy,
        "pca": np.abs(momentum.pca),
    }
    if measure not in curves:
        raise ValueError(f"unknown momentum measure {measure!r}: use speed, energy or pca")
    return curves[measure].copy()
