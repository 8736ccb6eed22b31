"""Joining clip A to clip B: root alignment, crossfade and inertialization.

Seed 000 §4.1 step 4 aligns the next clip's start with the cut and crossfades
3–5 frames; §5.2 uses ``CrossFade(target, 0.12f)``, so ``blend_s`` defaults to
0.12 s (at 30 Hz that is §4.1's 3–5 frames).

Conventions: metres, seconds, radians, Y up, quaternions ``(w, x, y, z)``;
``F`` frames, ``J`` joints. Clips are never modified. Both clips must share
the skeleton (same joint names, parents and count) and the frame rate (within
one part in a million); B is *not* resampled here (:mod:`motioncore.resample`
does it, and :func:`motioncore.transition.plan` calls it), because a silent
resample would shift the ``entry`` frame the caller chose.

**Heading.** The reference joint is the pelvis (``hips`` role, else the first
root). Its forward axis, in its own frame, is ``left × up`` of the rest pose
(``left``: right to left upper leg; ``up``: hips to neck or head; +Z when the
roles are missing). The heading is the angle about +Y of that axis turned to
the world and projected on the ground: ``atan2(f_x, f_z)``, 0 facing +Z.

**Alignment** turns B about +Y and slides it on the ground so that, at
``b_frame``, its reference joint stands where A's stands at ``a_frame`` (X, Z)
and faces the same heading; heights are untouched. It is a rigid motion, so
B's own motion is unchanged.

**Output frames.** With ``n = round(blend_s · fps)`` (shortened to what B has
after ``entry``), output frame ``i`` is A's frame ``i`` for ``i < cut``, a mix
for ``cut ≤ i < cut + n`` (the blend window) and aligned B's frame
``entry + i - cut`` from ``cut + n`` on; the output has ``cut + F_B - entry``
frames and output frame ``cut`` is A's frame ``cut`` (when ``n ≥ 1``; ``n = 0``
is a hard cut, output frame ``cut`` is B's ``entry``).

* :func:`crossfade`: in the window both clips advance, A from ``cut`` (held at
  its last frame if it runs out), B from ``entry``; local rotations are slerped
  per joint (short arc) and local translations lerped, with smoothstep weights
  ``w_k = 3s² - 2s³``, ``s = k / n``: 0 at ``cut``, 1 at ``cut + n``. When the
  reference joint has a parent (a static carrier root such as Bandai Namco's
  ``joint_Root``, with the pelvis' motion in its own position channels), its
  *global* rotation and position are blended instead and its local values
  solved under the blended parent: lerping a local translation of metres under
  a parent that turns by the alignment's yaw would swing the body around it.
* :func:`inertialize` (Bollo, "Inertialization: High-Performance Animation
  Transitions in Gears of War", GDC 2018): the output switches to B at the cut
  and carries the offset ``x(t)`` = A minus B (per joint: the local-rotation
  difference ``A ⊗ B⁻¹`` as a rotation vector, and the local translation
  difference), which decays to zero over ``T = n / fps``. The pose velocity
  offset ``v0`` is A's rate of change at ``cut`` minus B's at ``entry``, both by
  central differences (one-sided at a clip's end), so that a clip joined to
  itself at the same frame gets no offset at all. The decay is
  Bollo's quintic, whose initial acceleration ``a0 = (-8 v0 T - 20 x0) / T²``
  makes ``x``, ``ẋ``, ``ẍ`` and the jerk vanish at ``T``; in closed form
  ``x(s) = (1 - s)⁴ [x0 (1 + 4s) + v0 T s]``, ``s = t / T``.
  Deviation: Bollo projects each offset on its own direction and shortens
  ``T`` to avoid overshoot (``T ≤ -5 x0 / v0``); here every component decays
  independently over the same ``T``, so all of ``v0`` is matched but an offset
  whose velocity points away from zero may overshoot. A reference joint with a
  parent gets its offset in world space, as in the crossfade.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore import fk, quat
from motioncore.clip import Clip, Skeleton
from motioncore.errors import MotionCoreError
from motioncore.skeleton import JointRoles, infer

FloatArray = NDArray[np.float64]
Method = Literal["crossfade", "inertialize"]

UP = np.array([0.0, 1.0, 0.0])
_GROUND = np.array([1.0, 0.0, 1.0])
_FPS_TOLERANCE = 1e-6
_DEGENERATE = 1e-9


def reference_joint(skeleton: Skeleton, roles: JointRoles | None = None) -> int:
    """The joint whose heading and ground position define the character's: the
    ``hips`` role, else the first root."""
    roles = infer(skeleton) if roles is None else roles
    hips = roles.get("hips")
    return int(skeleton.roots[0]) if hips is None else hips


def forward_axis(skeleton: Skeleton, roles: JointRoles | None = None) -> FloatArray:
    """Unit forward axis ``[3]`` in the reference joint's frame (see the module docstring)."""
    roles = infer(skeleton) if roles is None else roles
    rest = fk.rest_positions(skeleton.offsets, skeleton.parents)
    hips = reference_joint(skeleton, roles)
    left_leg, right_leg = roles.get("left_upper_leg"), roles.get("right_upper_leg")
    top = next((j for j in (roles.get("neck"), roles.get("head")) if j is not None), None)
    left = (
        np.array([1.0, 0.0, 0.0])
        if None in (left_leg, right_leg)
        else rest[left_leg] - rest[right_leg]
    )
    up = UP if top is None else rest[top] - rest[hips]
    forward = np.cross(left, up)
    norm = float(np.linalg.norm(forward))
    return forward / norm if norm > _DEGENERATE else np.array([0.0, 0.0, 1.0])


def heading(q: ArrayLike, forward: ArrayLike = (0.0, 0.0, 1.0)) -> FloatArray:
    """Heading ``[...]`` (radians about +Y, 0 facing +Z) of global rotations ``q [..., 4]``
    whose local ``forward [3]`` axis is the facing direction."""
    f = quat.rotate(
        q, np.broadcast_to(np.asarray(forward, dtype=np.float64), (*np.shape(q)[:-1], 3))
    )
    return np.asarray(np.arctan2(f[..., 0], f[..., 2]), dtype=np.float64)


def yaw(angle: ArrayLike) -> FloatArray:
    """Quaternions ``[..., 4]`` turning by ``angle [...]`` radians about +Y."""
    angle = np.asarray(angle, dtype=np.float64)
    return quat.from_axis_angle(np.broadcast_to(UP, (*angle.shape, 3)), angle)


def smoothstep(frames: int) -> FloatArray:
    """Crossfade weights ``[frames + 1]`` of B: ``3s² - 2s³`` at ``s = k / frames``,
    0 at the cut and 1 on the first frame after the blend (``[1.]`` for 0 frames)."""
    s = np.linspace(0.0, 1.0, frames + 1) if frames > 0 else np.ones(1)
    return s * s * (3.0 - 2.0 * s)


def quintic_decay(frames: int) -> tuple[FloatArray, FloatArray]:
    """Inertialization bases ``[frames + 1]`` at ``s = k / frames``: ``(1 - s)⁴ (1 + 4s)``
    (multiplies ``x0``) and ``s (1 - s)⁴`` (multiplies ``v0 · T``); both 0 at ``s = 1``."""
    s = np.linspace(0.0, 1.0, frames + 1) if frames > 0 else np.ones(1)
    tail = (1.0 - s) ** 4
    return tail * (1.0 + 4.0 * s), tail * s


@dataclass(frozen=True)
class Alignment:
    """A rigid motion of B: turn by ``yaw_rad`` about +Y around ``pivot_m`` then move
    ``pivot_m`` to ``target_m`` (``[3]`` world points on the ground, Y = 0)."""

    yaw_rad: float
    pivot_m: FloatArray
    target_m: FloatArray

    @property
    def rotation(self) -> FloatArray:
        """The turn as a quaternion ``[4]``."""
        return yaw(self.yaw_rad)

    def points(self, p: ArrayLike) -> FloatArray:
        """World points ``[..., 3]`` (metres) moved with B."""
        return (
            quat.rotate(self.rotation, np.asarray(p, dtype=np.float64) - self.pivot_m)
            + self.target_m
        )

    def vectors(self, v: ArrayLike) -> FloatArray:
        """World vectors ``[..., 3]`` (velocities) turned with B."""
        return quat.rotate(self.rotation, v)

    def apply(self, clip: Clip) -> Clip:
        """``clip`` moved rigidly: every root's translation and rotation (a new clip)."""
        rotations = clip.rotations.copy()
        translations = clip.translations.copy()
        roots = clip.skeleton.roots
        translations[:, roots] = self.points(clip.translations[:, roots])
        rotations[:, roots] = quat.mul(self.rotation, clip.rotations[:, roots])
        return clip.with_arrays(rotations=rotations, translations=translations)

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "yaw_rad": self.yaw_rad,
            "pivot_m": self.pivot_m.tolist(),
            "target_m": self.target_m.tolist(),
        }


def alignment_between(
    heading_a: float, point_a: ArrayLike, heading_b: float, point_b: ArrayLike
) -> Alignment:
    """The alignment taking B's heading (radians) and reference point ``[3]`` onto A's."""
    ground_a = np.asarray(point_a, dtype=np.float64) * _GROUND
    ground_b = np.asarray(point_b, dtype=np.float64) * _GROUND
    turn = float(np.angle(np.exp(1j * (heading_a - heading_b))))
    return Alignment(turn, ground_b, ground_a)


def alignment(
    b: Clip, b_frame: int, a: Clip, a_frame: int, roles: JointRoles | None = None
) -> Alignment:
    """The rigid motion of B that puts its frame ``b_frame`` on A's frame ``a_frame``."""
    check_compatible(a, b)
    roles = infer(a.skeleton) if roles is None else roles
    ref, forward = reference_joint(a.skeleton, roles), forward_axis(a.skeleton, roles)

    def state(clip: Clip, frame: int) -> tuple[float, FloatArray]:
        index = slice(_frame(clip, frame), _frame(clip, frame) + 1)
        g_rot, g_pos = fk.forward(
            clip.rotations[index], clip.translations[index], clip.skeleton.parents
        )
        return float(heading(g_rot[0, ref], forward)), g_pos[0, ref]

    return alignment_between(*state(a, a_frame), *state(b, b_frame))


def align(b: Clip, b_frame: int, a: Clip, a_frame: int, roles: JointRoles | None = None) -> Clip:
    """B moved rigidly so that at ``b_frame`` it stands and faces as A does at ``a_frame``."""
    return alignment(b, b_frame, a, a_frame, roles).apply(b)


@dataclass(frozen=True, eq=False)
class BlendResult:
    """The transition clip and where its parts sit (output frame indices).

    Attributes:
        clip: the output, ``cut + F_B - entry`` frames at A's rate.
        method: ``"crossfade"`` or ``"inertialize"``.
        cut: output frame of the switch; output frames before it are A's frames.
        entry: B's frame played at output frame ``cut``.
        blend_start: first frame of the blend window (``= cut``).
        blend_stop: first frame after it (``cut + n``): aligned B's ``entry + n``.
        alignment: the rigid motion applied to B.
    """

    clip: Clip
    method: Method
    cut: int
    entry: int
    blend_start: int
    blend_stop: int
    alignment: Alignment

    def b_frame(self, output_frame: int) -> int:
        """B's frame played at ``output_frame`` (≥ ``cut``)."""
        return self.entry + output_frame - self.cut

    def as_dict(self) -> dict[str, object]:
        """JSON-able form (frames only; the clip is exported separately)."""
        return {
            "method": self.method,
            "frames": self.clip.num_frames,
            "cut_frame": self.cut,
            "entry_frame": self.entry,
            "blend_start_frame": self.blend_start,
            "blend_stop_frame": self.blend_stop,
            "alignment": self.alignment.as_dict(),
        }


def check_compatible(a: Clip, b: Clip) -> None:
    """Raise :class:`MotionCoreError` unless A and B share skeleton and frame rate."""
    check_skeletons(a.skeleton, b.skeleton)
    if abs(a.fps - b.fps) > _FPS_TOLERANCE * a.fps:
        raise MotionCoreError(
            f"clips have different frame rates ({a.fps:g} vs {b.fps:g} Hz): resample B first"
        )


def check_skeletons(sa: Skeleton, sb: Skeleton) -> None:
    """Raise :class:`MotionCoreError` unless the skeletons have the same joints (count,
    names, parents); offsets may differ."""
    if sa.num_joints != sb.num_joints:
        raise MotionCoreError(
            f"clips have different skeletons ({sa.num_joints} vs {sb.num_joints} joints)"
        )
    if sa.names != sb.names:
        j = next(i for i, (x, y) in enumerate(zip(sa.names, sb.names, strict=True)) if x != y)
        raise MotionCoreError(
            f"clips have different skeletons (joint {j} is {sa.names[j]!r} vs {sb.names[j]!r})"
        )
    if not np.array_equal(sa.parents, sb.parents):
        raise MotionCoreError("clips have different skeletons (different joint parents)")


def _frame(clip: Clip, frame: int) -> int:
    if not 0 <= int(frame) < clip.num_frames:
        raise MotionCoreError(f"frame {frame} is outside the clip (0..{clip.num_frames - 1})")
    return int(frame)


def _prepare(
    a: Clip, cut: int, b: Clip, entry: int, blend_s: float, roles: JointRoles | None
) -> tuple[Clip, Alignment, int]:
    """Aligned B, the alignment and the blend length in frames."""
    if not (np.isfinite(blend_s) and blend_s >= 0.0):
        raise MotionCoreError(f"blend_s must be a non-negative number of seconds, got {blend_s!r}")
    moved = alignment(b, _frame(b, entry), a, _frame(a, cut), roles)
    n = min(round(blend_s * a.fps), b.num_frames - 1 - entry)
    return moved.apply(b), moved, n


def _assemble(
    a: Clip, cut: int, b: Clip, entry: int, mid: tuple[FloatArray, FloatArray]
) -> tuple[FloatArray, FloatArray]:
    """A before the cut, the blend window ``mid`` (rotations, translations), then B."""
    n = mid[0].shape[0]
    rotations = np.concatenate([a.rotations[:cut], mid[0], b.rotations[entry + n :]])
    translations = np.concatenate([a.translations[:cut], mid[1], b.translations[entry + n :]])
    return rotations, translations


def _result(
    a: Clip,
    method: Method,
    cut: int,
    entry: int,
    arrays: tuple[FloatArray, FloatArray],
    n: int,
    moved: Alignment,
) -> BlendResult:
    meta: dict[str, object] = {"blend": method, "cut_frame": cut, "entry_frame": entry}
    clip = Clip(a.skeleton, arrays[0], arrays[1], a.fps, a.source, meta)
    return BlendResult(clip, method, cut, entry, cut, cut + n, moved)


def crossfade(
    a: Clip,
    cut: int,
    b: Clip,
    entry: int,
    blend_s: float = 0.12,
    *,
    roles: JointRoles | None = None,
) -> BlendResult:
    """A until ``cut``, then aligned B from ``entry``, crossfaded over ``blend_s`` seconds.

    Args:
        a, b: clips with the same skeleton and frame rate (not modified).
        cut: A's frame where the switch starts, ``0 ≤ cut < F_A``.
        entry: B's frame played at the cut, ``0 ≤ entry < F_B``.
        blend_s: blend length, seconds (seed 000 §5.2: 0.12).
        roles: joint roles of the shared skeleton (inferred when ``None``).

    Returns:
        The output clip and its frame layout (see the module docstring).

    Raises:
        MotionCoreError: different skeletons or frame rates, frames out of range.
    """
    moved_b, moved, n = _prepare(a, cut, b, entry, blend_s, roles)
    k = np.arange(n)
    w = smoothstep(n)[:n]
    ia = np.minimum(cut + k, a.num_frames - 1)
    ib = entry + k
    rot = quat.slerp(a.rotations[ia], moved_b.rotations[ib], w[:, None])
    tr_a = a.translations[ia]
    tr = tr_a + w[:, None, None] * (moved_b.translations[ib] - tr_a)
    ref = reference_joint(a.skeleton, roles)
    if a.skeleton.parents[ref] >= 0:
        parents = a.skeleton.parents
        ga_rot, ga_pos = fk.forward(a.rotations[ia], a.translations[ia], parents)
        gb_rot, gb_pos = fk.forward(moved_b.rotations[ib], moved_b.translations[ib], parents)
        target_rot = quat.slerp(ga_rot[:, ref], gb_rot[:, ref], w)
        target_pos = ga_pos[:, ref] + w[:, None] * (gb_pos[:, ref] - ga_pos[:, ref])
        rot, tr = _pin(rot, tr, parents, ref, target_rot, target_pos)
    return _result(
        a, "crossfade", cut, entry, _assemble(a, cut, moved_b, entry, (rot, tr)), n, moved
    )


def _pin(
    rot: FloatArray,
    tr: FloatArray,
    parents: NDArray[np.int64],
    joint: int,
    target_rot: FloatArray,
    target_pos: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Local arrays ``[n, J, ...]`` with ``joint``'s local rotation and translation set so
    that its global rotation ``[n, 4]`` and position ``[n, 3]`` are the targets."""
    g_rot, g_pos = fk.forward(rot, tr, parents)
    parent = int(parents[joint])
    inverse = quat.conjugate(g_rot[:, parent])
    rot, tr = rot.copy(), tr.copy()
    rot[:, joint] = quat.mul(inverse, target_rot)
    tr[:, joint] = quat.rotate(inverse, target_pos - g_pos[:, parent])
    return rot, tr


def _span(frames: int, frame: int) -> tuple[int, int]:
    """Neighbours of ``frame`` for a central difference (one-sided at the clip's ends)."""
    return max(frame - 1, 0), min(frame + 1, frames - 1)


def _velocity(x: FloatArray, frame: int, fps: float) -> FloatArray:
    """Central-difference rate ``[...]`` per second of ``x [F, ...]`` at ``frame``."""
    lo, hi = _span(x.shape[0], frame)
    if hi == lo:
        return np.zeros(x.shape[1:])
    rate: FloatArray = (x[hi] - x[lo]) * (fps / (hi - lo))
    return rate


def _angular_velocity(q: FloatArray, frame: int, fps: float) -> FloatArray:
    """Central-difference angular velocities ``[J, 3]`` (rad/s, parent frame, left-multiplied)
    of local rotations ``q [F, J, 4]`` at ``frame``."""
    lo, hi = _span(q.shape[0], frame)
    if hi == lo:
        return np.zeros((*q.shape[1:-1], 3))
    return quat.to_rotvec(quat.mul(q[hi], quat.conjugate(q[lo]))) * (fps / (hi - lo))


def inertialize(
    a: Clip,
    cut: int,
    b: Clip,
    entry: int,
    blend_s: float = 0.12,
    *,
    roles: JointRoles | None = None,
) -> BlendResult:
    """Switch to aligned B at ``cut`` and let A's pose offset decay over ``blend_s`` seconds.

    Same arguments, checks and frame layout as :func:`crossfade`; the offset and
    its decay are described in the module docstring (Bollo, GDC 2018). Output
    frame ``cut`` is A's pose at ``cut``; from ``cut + n`` on it is aligned B.
    """
    moved_b, moved, n = _prepare(a, cut, b, entry, blend_s, roles)
    fps = a.fps
    x0_rot = quat.to_rotvec(quat.mul(a.rotations[cut], quat.conjugate(moved_b.rotations[entry])))
    v0_rot = _angular_velocity(a.rotations, cut, fps) - _angular_velocity(
        moved_b.rotations, entry, fps
    )
    x0_tr = a.translations[cut] - moved_b.translations[entry]
    v0_tr = _velocity(a.translations, cut, fps) - _velocity(moved_b.translations, entry, fps)
    p, q = (basis[:n, None, None] for basis in quintic_decay(n))
    duration_s = n / fps
    ib = slice(entry, entry + n)
    offset_rot = p * x0_rot + q * duration_s * v0_rot
    rot = quat.mul(quat.from_rotvec(offset_rot), moved_b.rotations[ib])
    tr = moved_b.translations[ib] + p * x0_tr + q * duration_s * v0_tr
    ref = reference_joint(a.skeleton, roles)
    if a.skeleton.parents[ref] >= 0:
        rot, tr = _inertialize_reference(a, cut, moved_b, entry, n, ref, (rot, tr))
    arrays = _assemble(a, cut, moved_b, entry, (rot, tr))
    return _result(a, "inertialize", cut, entry, arrays, n, moved)


def _inertialize_reference(
    a: Clip,
    cut: int,
    moved_b: Clip,
    entry: int,
    n: int,
    ref: int,
    window: tuple[FloatArray, FloatArray],
) -> tuple[FloatArray, FloatArray]:
    """The window with the reference joint's *global* offset decaying (when it has a
    parent, its local offset would swing it around that parent)."""
    parents, fps = a.skeleton.parents, a.fps

    def globals_near(clip: Clip, frame: int) -> tuple[FloatArray, FloatArray]:
        lo, hi = _span(clip.num_frames, frame)
        g_rot, g_pos = fk.forward(
            clip.rotations[[lo, frame, hi]], clip.translations[[lo, frame, hi]], parents
        )
        return g_rot[:, ref], g_pos[:, ref]

    a_rot, a_pos = globals_near(a, cut)
    b_rot, b_pos = globals_near(moved_b, entry)
    x0_rot = quat.to_rotvec(quat.mul(a_rot[1], quat.conjugate(b_rot[1])))
    v0_rot = (
        _angular_velocity(a_rot[:, None], 1, fps)[0] - _angular_velocity(b_rot[:, None], 1, fps)[0]
    )
    x0_pos = a_pos[1] - b_pos[1]
    v0_pos = _velocity(a_pos, 1, fps) - _velocity(b_pos, 1, fps)
    p, q = (basis[:n, None] for basis in quintic_decay(n))
    duration_s = n / fps
    gb_rot, gb_pos = fk.forward(
        moved_b.rotations[entry : entry + n], moved_b.translations[entry : entry + n], parents
    )
    target_rot = quat.mul(quat.from_rotvec(p * x0_rot + q * duration_s * v0_rot), gb_rot[:, ref])
    target_pos = gb_pos[:, ref] + p * x0_pos + q * duration_s * v0_pos
    return _pin(window[0], window[1], parents, ref, target_rot, target_pos)


BLENDS = {"crossfade": crossfade, "inertialize": inertialize}
"""Blend functions by name."""
