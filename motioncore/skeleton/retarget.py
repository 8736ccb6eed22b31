"""Retargeting between a role-resolved humanoid rig and the canonical skeleton.

The method matches **bone directions**, not rotations, so it does not care how a rig
defines its rest pose (T-pose, A-pose, Bandai's bones all along +X):

1. **Landmarks** (:mod:`motioncore.skeleton.landmarks`): world positions ``[F, 3]`` of
   every joint role and of three end points per body (head top, hand tips, toe tips),
   from the source motion by forward kinematics; a role the rig lacks, or puts on top
   of a neighbour, is placed where the canonical proportions put it, and an end point
   without an end site is the bone before it extended.
2. **Targets.** Each solved joint gets a *primary* direction (towards the next
   landmark: :data:`SEGMENTS`) and a *secondary* one that fixes the twist about it:
   the pelvis's up for the hips, the hips' and shoulders' left-right lines for the
   spine, chest and head; for the arms the
   direction from the elbow to the shoulder-hand line, for the legs from the
   hip-ankle line to the knee, each blended with the body's (or the foot's) forward
   by :data:`BEND_BLEND_M` so that a straight limb still has a defined twist.
3. **Solve.** On the target rig, at a *reference pose* (the canonical rest, or the
   rig's first frame), the same landmarks give each joint's primary and secondary
   directions in its own frame. Every frame, the joint's world rotation is the one
   that turns that pair onto the targets (both orthonormalised, the primary exact);
   its local rotation follows from its parent's. Joints without a role (twist bones,
   fingers, face) keep their reference local rotation.
   The feet and toes are the exception: their bones are turned about their own lateral
   axes so that the clip's flat foot stands flat on the target's sole
   (:mod:`motioncore.skeleton.sole`: each release puts its ankle and ball its own way).
4. **Root.** The hips follow the source hips scaled by the ratio of leg lengths
   (:func:`leg_length_m`), so a character with longer legs takes longer strides and
   the feet stay on the ground; translations other than the root's keep the reference.

:func:`to_canonical` maps any clip onto :func:`motioncore.skeleton.canonical.skeleton`;
:func:`to_rig` maps a canonical clip back onto a user's rig. The bone directions of
every solved joint but the feet and toes equal the source's (to rounding); what is lost
is the twist of a bone about itself where the positions do not show it (head yaw,
forearm roll).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, quat
from motioncore.clip import Clip
from motioncore.errors import SkeletonError
from motioncore.skeleton import canonical, sole
from motioncore.skeleton.landmarks import Rig, canonical_points, landmarks, leg_length_m, unit
from motioncore.skeleton.roles import JointRoles

FloatArray = NDArray[np.float64]

BEND_BLEND_M = 0.04
"""How much (metres, canonical scale) of the forward direction a limb's bend vector
gets: a limb bent by more than a few degrees defines its own twist, a straight one
takes the body's (arms) or the foot's (legs) forward."""

PELVIS_BLEND_M = 0.02
"""How much (metres, canonical scale) of the direction to the spine tilts the pelvis:
the pelvis's own geometry (the hips joint above the hip joints' midpoint) sets its
tilt wherever the rig has it; a rig whose hips sit on that midpoint tilts with the
spine."""

_SIDES = ("left", "right")

SEGMENTS: dict[str, tuple[str, str]] = {
    "hips": ("hips_left", "hips_up"),
    "spine": ("chest", "body_left"),
    "chest": ("neck", "shoulders_left"),
    "neck": ("head", "shoulders_left"),
    "head": ("head_end", "shoulders_left"),
    **{
        f"{s}_{part}": pair
        for s in _SIDES
        for part, pair in (
            ("shoulder", (f"{s}_upper_arm", "body_up")),
            ("upper_arm", (f"{s}_forearm", f"{s}_arm_bend")),
            ("forearm", (f"{s}_hand", f"{s}_arm_bend")),
            ("hand", (f"{s}_hand_end", f"{s}_arm_bend")),
            ("upper_leg", (f"{s}_lower_leg", f"{s}_leg_bend")),
            ("lower_leg", (f"{s}_foot", f"{s}_leg_bend")),
            ("foot", (f"{s}_toe", "body_up")),
            ("toe", (f"{s}_toe_end", "body_up")),
        )
    },
}
"""Solved role → (its primary direction: the landmark it points to, or a named vector
of :func:`secondaries`; its secondary vector).

The pelvis is set by the line through the hip joints (exact, so the legs start where
the source's do) and tilted by its own geometry (:data:`PELVIS_BLEND_M`); every other
joint points at the next landmark of its chain."""


def secondaries(points: Mapping[str, FloatArray], scale: float) -> dict[str, FloatArray]:
    """The secondary vectors ``[F, 3]`` named in :data:`SEGMENTS` (unit length)."""
    hips_left = unit(points["left_upper_leg"] - points["right_upper_leg"])
    shoulders_left = unit(points["left_upper_arm"] - points["right_upper_arm"])
    body_left = unit(hips_left + shoulders_left)
    body_up = unit(points["neck"] - points["hips"])
    body_forward = unit(np.cross(body_left, body_up))
    out = {
        "hips_left": hips_left,
        "hips_up": unit(
            pelvis_lift(points) + PELVIS_BLEND_M * scale * unit(points["spine"] - points["hips"])
        ),
        "shoulders_left": shoulders_left,
        "body_left": body_left,
        "body_up": body_up,
    }
    blend = BEND_BLEND_M * scale
    for s in _SIDES:
        elbow = _off_line(points[f"{s}_upper_arm"], points[f"{s}_hand"], points[f"{s}_forearm"])
        out[f"{s}_arm_bend"] = unit(-elbow + blend * body_forward)
        toe = points[f"{s}_toe"] - points[f"{s}_foot"]
        foot_forward = unit(toe - np.sum(toe * body_up, axis=-1, keepdims=True) * body_up)
        knee = _off_line(points[f"{s}_upper_leg"], points[f"{s}_foot"], points[f"{s}_lower_leg"])
        out[f"{s}_leg_bend"] = unit(_ahead(knee, foot_forward, blend) + blend * foot_forward)
    return out


def pelvis_lift(points: Mapping[str, FloatArray]) -> FloatArray:
    """``[F, 3]`` the hips joint less the midpoint of the hip joints: the pelvis's own
    up, which tilts it; zero for a rig whose hips joint sits below that midpoint on
    average (the Daz release of CMU roots its legs at buttock joints above the hips),
    where the vector says nothing about the pelvis's tilt and flipped it over."""
    lift = points["hips"] - 0.5 * (points["left_upper_leg"] + points["right_upper_leg"])
    upward = float(np.mean(np.sum(lift * unit(points["chest"] - points["hips"]), axis=-1)))
    return lift if upward > 0.0 else np.zeros_like(lift)


def _ahead(knee: FloatArray, forward: FloatArray, blend: float) -> FloatArray:
    """A knee's offset from its hip-ankle line ``[F, 3]`` with a part a little behind the
    line along the foot's ``forward`` (an overstretched, locked knee) mirrored to the
    front: otherwise those few centimetres cancel the foot's forward (``blend`` of it)
    and leave the thigh's twist to the knee's sideways wobble (up to 100° on ReActIdle's
    standing takes). The mirrored part is all of it up to ``blend`` behind and fades
    out by twice that: a knee further behind the foot's forward is a bent one whose
    foot points back (a running stride's swing) and keeps its own direction."""
    behind = np.maximum(-np.sum(knee * forward, axis=-1, keepdims=True), 0.0)
    mirrored = np.where(behind <= blend, behind, np.maximum(2.0 * blend - behind, 0.0))
    out: FloatArray = knee + 2.0 * mirrored * forward
    return out


def _off_line(a: FloatArray, b: FloatArray, p: FloatArray) -> FloatArray:
    """Vector from the line ``a``-``b`` to ``p`` (perpendicular), ``[F, 3]``."""
    axis = unit(b - a)
    rel = p - a
    out: FloatArray = rel - np.sum(rel * axis, axis=-1, keepdims=True) * axis
    return out


def targets(
    points: Mapping[str, FloatArray], scale: float
) -> dict[str, tuple[FloatArray, FloatArray]]:
    """Solved role → (primary, secondary) unit world directions ``[F, 3]``."""
    second = secondaries(points, scale)
    return {
        role: (
            second[toward] if toward in second else unit(points[toward] - points[role]),
            second[kind],
        )
        for role, (toward, kind) in SEGMENTS.items()
    }


def on_sole(
    wanted: Mapping[str, tuple[FloatArray, FloatArray]], turns: Mapping[str, float]
) -> dict[str, tuple[FloatArray, FloatArray]]:
    """``wanted`` with each role of ``turns`` (:func:`motioncore.skeleton.sole.turns`)
    turned by that many radians, toe down."""
    out = dict(wanted)
    for role, down in turns.items():
        primary, secondary = wanted[role]
        out[role] = (sole.turned(primary, secondary, down), secondary)
    return out


def _frame(primary: FloatArray, secondary: FloatArray) -> FloatArray:
    """Orthonormal frames ``[..., 3, 3]`` (columns: primary, secondary ⟂, their cross)."""
    a = unit(primary)
    b = unit(secondary - np.sum(secondary * a, axis=-1, keepdims=True) * a)
    return np.stack([a, b, np.cross(a, b)], axis=-1)


def solve(
    rig: Rig,
    reference_rotations: FloatArray,
    reference_translations: FloatArray,
    wanted: Mapping[str, tuple[FloatArray, FloatArray]],
    hips: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Local rotations ``[F, J, 4]`` and translations ``[F, J, 3]`` of ``rig`` whose
    solved joints point along ``wanted`` and whose hips are at ``hips [F, 3]``.

    ``reference_*`` (``[J, 4]``, ``[J, 3]``): the reference pose's local rotations and
    translations; their landmarks give each joint's own primary and secondary axes.
    """
    parents = rig.skeleton.parents
    ref_world, ref_pos = fk.forward(
        reference_rotations[None], reference_translations[None], parents
    )
    scale = leg_length_m(landmarks(rig, ref_pos)) / leg_length_m(canonical_points())
    ref_wanted = targets(landmarks(rig, ref_pos), scale)
    frames = hips.shape[0]
    world = np.empty((frames, rig.skeleton.num_joints, 4))
    local = np.broadcast_to(reference_rotations, world.shape).copy()
    solved = {rig.roles.joints[r]: r for r in SEGMENTS if r in rig.roles.joints}
    for j, p in enumerate(parents):
        if j in solved:
            role = solved[j]
            inv_ref = quat.conjugate(ref_world[0, j])
            own = _frame(
                quat.rotate(inv_ref, ref_wanted[role][0][0]),
                quat.rotate(inv_ref, ref_wanted[role][1][0]),
            )
            matrix = _frame(*wanted[role]) @ own.T
            world[:, j] = quat.from_matrix(matrix)
            if p >= 0:
                local[:, j] = quat.mul(quat.conjugate(world[:, p]), world[:, j])
            else:
                local[:, j] = world[:, j]
        else:
            world[:, j] = local[:, j] if p < 0 else quat.mul(world[:, p], local[:, j])
    translations = np.broadcast_to(
        reference_translations, (frames, *reference_translations.shape)
    ).copy()
    placed = fk.forward_matrices(local, translations, parents)[1][:, rig.roles.joints["hips"]]
    root = int(_root_of(parents, rig.roles.joints["hips"]))
    translations[:, root] += hips - placed
    return quat.normalize(local), translations


def _root_of(parents: NDArray[np.integer], joint: int) -> int:
    while parents[joint] >= 0:
        joint = int(parents[joint])
    return joint


def to_canonical(clip: Clip, roles: JointRoles | None = None) -> Clip:
    """``clip`` on the canonical skeleton (same frames and rate), scaled to its legs.

    ``meta`` gains ``retarget``: the source's leg length and the scale applied."""
    positions = fk.positions(clip)
    rig = Rig.of(clip.skeleton, positions[0], roles)
    points = landmarks(rig, positions)
    source_leg = leg_length_m(points)
    scale = leg_length_m(canonical_points()) / source_leg
    target = canonical.skeleton()
    crig = Rig.of(target, canonical.rest_positions(), canonical.roles())
    ref_rot = quat.identity((target.num_joints,))
    ref_tr = target.offsets.copy()
    ref_tr[0] = (0.0, canonical.HIPS_HEIGHT_M, 0.0)
    turns = (
        {}
        if _on_canonical_bones(clip)
        else sole.turns(sole.flat_pitches(points, scale, clip.fps), sole.canonical_pitches())
    )
    rotations, translations = solve(
        crig,
        ref_rot,
        ref_tr,
        on_sole(targets(points, 1.0 / scale), turns),
        points["hips"] * scale,
    )
    retargeted = {"source_leg_m": source_leg, "scale": scale, "sole_turns_deg": _degrees(turns)}
    meta = {**clip.meta, "retarget": retargeted}
    return Clip(target, rotations, translations, clip.fps, meta=meta)


def _on_canonical_bones(clip: Clip) -> bool:
    """Whether ``clip`` is on the canonical skeleton already (its feet on the canonical
    sole, whatever its motion's lowest frames show)."""
    target = canonical.skeleton()
    return clip.skeleton.names == target.names and bool(
        np.allclose(clip.skeleton.offsets[1:], target.offsets[1:])
    )


def _rig_turns(rig: Rig, rig_clip: Clip, rig_leg: float) -> dict[str, float]:
    """How far to turn a canonical motion's feet and toes so that they stand flat on
    ``rig_clip``'s own flat foot (read from its motion; none for a canonical rig)."""
    if _on_canonical_bones(rig_clip):
        return {}
    points = landmarks(rig, fk.positions(rig_clip))
    flat = sole.flat_pitches(points, leg_length_m(canonical_points()) / rig_leg, rig_clip.fps)
    return sole.turns(sole.canonical_pitches(), flat)


def _degrees(turns: Mapping[str, float]) -> dict[str, float]:
    return {role: round(float(np.degrees(t)), 2) for role, t in turns.items()}


def rig_leg_m(rig_clip: Clip, roles: JointRoles | None = None) -> float:
    """Thigh + shin of ``rig_clip``'s skeleton in its first frame (the reference pose), m."""
    reference = fk.positions(
        rig_clip.with_arrays(rig_clip.rotations[:1], rig_clip.translations[:1])
    )
    return leg_length_m(landmarks(Rig.of(rig_clip.skeleton, reference[0], roles), reference))


def to_rig(motion: Clip, rig_clip: Clip, roles: JointRoles | None = None) -> Clip:
    """A canonical-skeleton ``motion`` on the skeleton of ``rig_clip``, whose first frame
    is the reference pose; strides scale with the rig's legs (the root's path is
    scaled by the rig's leg over the canonical one: :mod:`motioncore.pfnn.on_rig`
    walks a path in metres by asking the canonical walk for the scaled-down path)."""
    if motion.skeleton.names != canonical.NAMES:
        raise SkeletonError("to_rig takes a clip on the canonical skeleton (to_canonical's output)")
    reference = fk.positions(
        rig_clip.with_arrays(rig_clip.rotations[:1], rig_clip.translations[:1])
    )
    rig = Rig.of(rig_clip.skeleton, reference[0], roles)
    rig_leg = leg_length_m(landmarks(rig, reference))
    canonical_rig = Rig.of(canonical.skeleton(), canonical.rest_positions(), canonical.roles())
    points = landmarks(canonical_rig, fk.positions(motion))
    scale = rig_leg / leg_length_m(points)
    rotations, translations = solve(
        rig,
        rig_clip.rotations[0],
        rig_clip.translations[0],
        on_sole(targets(points, 1.0), _rig_turns(rig, rig_clip, rig_leg)),
        points["hips"] * scale,
    )
    return rig_clip.with_arrays(rotations, translations, motion.fps)
