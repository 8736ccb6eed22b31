"""Joining clip A to clip B: crossfade and inertialization after root alignment.

Seed 000 §4.1 step 4 aligns the next clip's start with the cut and crossfades
3–5 frames; §5.2 uses ``CrossFade(target, 0.12f)``, so ``blend_s`` defaults to
0.12 s (at 30 Hz that is §4.1's 3–5 frames).

Conventions: metres, seconds, radians, Y up, quaternions ``(w, x, y, z)``;
``F`` frames, ``J`` joints. Clips are never modified. Both clips must share
the skeleton (same joint names, parents and count) and the frame rate (within
one part in a million); B is *not* resampled here (:mod:`motioncore.clean.resample`
does it, and :func:`motioncore.transition.plan` calls it), because a silent
resample would shift the ``entry`` frame the caller chose.

B is first moved rigidly onto A at the cut (:func:`motioncore.transition.alignment.alignment`;
the reference joint, heading and alignment are defined in :mod:`motioncore.transition.alignment`).

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
from numpy.typing import NDArray

from motioncore import fk, quat
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.parameters import BLEND_S
from motioncore.skeleton import JointRoles
from motioncore.skeleton.facing import reference_joint
from motioncore.transition.alignment import Alignment, alignment, check_frame

FloatArray = NDArray[np.float64]
Method = Literal["crossfade", "inertialize"]


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


def _prepare(
    a: Clip, cut: int, b: Clip, entry: int, blend_s: float, roles: JointRoles | None
) -> tuple[Clip, Alignment, int]:
    """Aligned B, the alignment and the blend length in frames."""
    if not (np.isfinite(blend_s) and blend_s >= 0.0):
        raise MotionCoreError(f"blend_s must be a non-negative number of seconds, got {blend_s!r}")
    moved = alignment(b, check_frame(b, entry), a, check_frame(a, cut), roles)
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
    blend_s: float = BLEND_S.default,
    *,
    roles: JointRoles | None = None,
) -> BlendResult:
    """A until ``cut``, then aligned B from ``entry``, crossfaded over ``blend_s`` seconds.

    Args:
        a, b: clips with the same skeleton and frame rate (not modified).
        cut: A's frame where the switch starts, ``0 ≤ cut < F_A``.
        entry: B's frame played at the cut, ``0 ≤ entry < F_B``.
        blend_s: blend length, seconds (its default: :data:`motioncore.parameters.BLEND_S`).
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
    blend_s: float = BLEND_S.default,
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
