"""Semantic joint roles: which joint is the hips, a foot, a hand, ...

Every analysis that needs a foot, a hand or a segment-mass table goes through
:func:`infer`, never through a hard-coded joint name.

Conventions: joint indices refer to ``Skeleton.names``; end effectors (``End
Site``) are never roles. Offsets are only used as directions and length ratios
of the rest pose (zero rotations), so units do not matter.

How roles are found, in this order (each step only fills what is still empty;
a joint carries one role at most, except through overrides):

1. **overrides** (role -> joint name), checked strictly;
2. **extremities by name** (:mod:`motioncore.skeleton.names`): feet, hands and head
   are the topmost joints whose names say so (``LeftFoot``, ``lAnkle``,
   ``CC_Base_L_Hand``, ``wrist.L``; ties go to the lowest number in the name);
3. **extremities by topology and rest geometry**, only where names said nothing
   (:func:`motioncore.skeleton.topology.body_plan`, which states its assumptions), and
   never a joint whose name says another part (a Rigify arm ending at ``forearm.L``
   has no hand, not a hand at the elbow);
4. **hips** = the lowest common ancestor of the feet, hands and head, so floor
   roots above the pelvis (iClone ``RL_BoneRoot``, Bandai Namco ``joint_Root``) and
   leg-only pelvis joints (iClone ``CC_Base_Pelvis``, MakeHuman ``Hips``) are skipped;
   without feet, the deepest hips-named joint above all extremities;
5. **limb chains**: the joints between the hips and a hand/foot that lead to no
   other extremity, minus twist, share and helper bones, are matched in order
   (shoulder, upper arm, forearm, hand; upper leg, lower leg, foot): strong names
   first (``LeftArm``, ``lShldr``, ``Collar``), then weak ones (``LeftShoulder`` is the
   clavicle above ``LeftArm`` but the upper arm below ``LeftCollar``), then the next
   joint up the chain for a slot still empty (topology); a limb whose hand/foot is
   unresolved is matched by names only, on the chain above its deepest joint that is
   overridden or named as one of its other parts (``shoulder.L -> upper_arm.L ->
   forearm.L``);
6. **toe** = the topmost toe-named joint below the foot (MakeHuman ``toe1-1.L``, the
   big toe, by the lowest-number rule), else the foot's only eligible child;
   **chest** = the common ancestor of the two arms; **neck** = the topmost neck-named
   joint between chest and head, else the first joint between them;
   **spine chain** = the joints strictly between hips and neck (or head);
   **spine** = its first joint when that is not the chest.

A role the rig lacks (Daz and Biovision rigs have no toe joint, GAMES-105 has no
separate neck, the ReActIdle rig no hand joint) is reported in ``unresolved``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from motioncore.clip import Skeleton
from motioncore.errors import SkeletonError
from motioncore.skeleton.context import EXTREMITIES, Context, Draft
from motioncore.skeleton.limbs import resolve_limb
from motioncore.skeleton.names import Side
from motioncore.skeleton.topology import body_plan

_SIDES: tuple[Side, Side] = ("left", "right")
_ARM: tuple[str, ...] = ("shoulder", "upper_arm", "forearm", "hand")
_LEG: tuple[str, ...] = ("upper_leg", "lower_leg", "foot")
_CENTRAL: tuple[str, ...] = ("hips", "spine", "chest", "neck", "head")

ROLES: tuple[str, ...] = (
    *_CENTRAL,
    *(f"{s}_{p}" for s in _SIDES for p in _ARM),
    *(f"{s}_{p}" for s in _SIDES for p in (*_LEG, "toe")),
)
"""Every role, in report order."""

_HUMANOID: tuple[str, ...] = ("hips", "left_foot", "right_foot", "left_hand", "right_hand")


@dataclass(frozen=True)
class JointRoles:
    """Resolved joint roles of one skeleton.

    Attributes:
        joints: role -> joint index, resolved roles only.
        spine_chain: joint indices from the hips (exclusive) up to the neck
            (exclusive; the head when there is no neck), root side first.
        unresolved: roles not found, in :data:`ROLES` order.
        how: role -> ``"name"`` (the joint's name says so), ``"topology"`` (its place
            in the hierarchy does) or ``"override"``.
    """

    joints: Mapping[str, int]
    spine_chain: tuple[int, ...]
    unresolved: tuple[str, ...]
    how: Mapping[str, str] = field(default_factory=dict)

    def get(self, role: str) -> int | None:
        """Joint index of ``role``, ``None`` if unresolved (``SkeletonError`` if not a role)."""
        _check_roles((role,))
        return self.joints.get(role)

    def require(self, *roles: str) -> tuple[int, ...]:
        """Joint indices of ``roles``; ``SkeletonError`` naming every missing one."""
        _check_roles(roles)
        missing = [r for r in roles if r not in self.joints]
        if missing:
            raise SkeletonError(f"unresolved joint role(s): {', '.join(missing)}")
        return tuple(self.joints[r] for r in roles)

    def as_dict(self, names: Sequence[str]) -> dict[str, object]:
        """JSON-able report: ``joints`` (role -> joint name), ``spine_chain`` (names),
        ``unresolved``, ``how`` and ``is_humanoid``."""
        return {
            "joints": {r: names[j] for r, j in self.joints.items()},
            "spine_chain": [names[j] for j in self.spine_chain],
            "unresolved": list(self.unresolved),
            "how": dict(self.how),
            "is_humanoid": self.is_humanoid,
        }

    @property
    def is_humanoid(self) -> bool:
        """True when hips, both feet and both hands are resolved."""
        return all(r in self.joints for r in _HUMANOID)


def _check_roles(roles: Sequence[str]) -> None:
    unknown = [r for r in roles if r not in ROLES]
    if unknown:
        raise SkeletonError(f"unknown joint role(s): {', '.join(unknown)}")


def _apply_overrides(ctx: Context, draft: Draft, overrides: Mapping[str, str]) -> None:
    """Fix overridden roles; unknown roles, unknown/ambiguous names and end sites raise."""
    _check_roles(list(overrides))
    names = ctx.skeleton.names
    for role, name in overrides.items():
        hits = [j for j, n in enumerate(names) if n == name]
        if len(hits) != 1:
            problem = "no joint" if not hits else f"{len(hits)} joints"
            raise SkeletonError(f"override {role}={name!r}: {problem} with that name")
        if ctx.skeleton.end_site[hits[0]]:
            raise SkeletonError(f"override {role}={name!r}: an end site cannot take a role")
        draft.joints[role] = hits[0]
        draft.overridden.add(role)


def _named_extremities(ctx: Context, draft: Draft) -> None:
    """Feet, hands and head by name (topmost match)."""
    for side in _SIDES:
        for kind in ("foot", "hand"):
            draft.put(f"{side}_{kind}", next(iter(ctx.named(kind, side)), None))
    draft.put("head", next(iter(ctx.named("head", None)), None))


def _find_hips(ctx: Context, draft: Draft) -> None:
    """Hips = lowest common ancestor of the extremities if a foot is known, else hips-named."""
    ends = [draft.joints[r] for r in EXTREMITIES if r in draft.joints]
    if "left_foot" in draft.joints or "right_foot" in draft.joints:
        draft.put("hips", ctx.lca(ends))
        return
    above = [j for j in ctx.named("hips", None) if all(ctx.is_ancestor(j, e) for e in ends)]
    draft.put("hips", above[-1] if above else None)


def _find_toes(ctx: Context, draft: Draft) -> None:
    """Toe = topmost toe-named descendant of the foot, else its only eligible child."""
    for side in _SIDES:
        foot = draft.joints.get(f"{side}_foot")
        if foot is None:
            continue
        below = [j for j, path in enumerate(ctx.paths) if foot in path[:-1]]
        named = ctx.named("toe", side, below)
        kids = [int(c) for c in ctx.skeleton.children(foot) if ctx.eligible[c]]
        draft.put(f"{side}_toe", named[0] if named else kids[0] if len(kids) == 1 else None)


def _find_chest(ctx: Context, draft: Draft) -> None:
    """Chest = common ancestor of both arms, strictly below the hips; else chest-named."""
    arms = [[draft.joints.get(f"{side}_{s}") for s in _ARM] for side in _SIDES]
    tops = [
        next(j for j in arm if j is not None) for arm in arms if any(j is not None for j in arm)
    ]
    hips = draft.joints.get("hips")
    chest = ctx.lca(tops) if len(tops) == 2 else None
    if chest is not None and hips is not None and chest != hips and ctx.is_ancestor(hips, chest):
        draft.put("chest", chest)
    draft.put("chest", next(iter(ctx.named("chest", None)), None))


def _find_neck(ctx: Context, draft: Draft) -> None:
    """Neck = topmost neck-named joint between chest and head, else the first joint between."""
    head = draft.joints.get("head")
    tops = [draft.joints.get(r) for r in ("chest", "hips")]
    top = next(
        (
            t
            for t in tops
            if t is not None and head is not None and t != head and ctx.is_ancestor(t, head)
        ),
        None,
    )
    if head is None or top is None:
        return
    path = ctx.paths[head]
    between = path[path.index(top) + 1 : -1]
    named = ctx.named("neck", None, between)
    draft.put("neck", named[0] if named else between[0] if between else None)


def _spine_chain(ctx: Context, draft: Draft) -> tuple[int, ...]:
    """Joints strictly between hips and neck (head if no neck); up to the chest if neither."""
    hips = draft.joints.get("hips")
    upper = draft.joints.get("neck", draft.joints.get("head"))
    chest = draft.joints.get("chest")
    if hips is None:
        return ()
    if upper is not None and upper != hips and ctx.is_ancestor(hips, upper):
        path = ctx.paths[upper]
        return path[path.index(hips) + 1 : -1]
    if chest is not None and chest != hips and ctx.is_ancestor(hips, chest):
        path = ctx.paths[chest]
        return path[path.index(hips) + 1 :]
    return ()


def _planned_extremities(ctx: Context, draft: Draft) -> None:
    """Extremities that names missed, from :func:`body_plan`, if unrelated to known ones and
    not named as another part (an arm ending at ``forearm.L`` has no hand)."""
    known = [draft.joints[r] for r in EXTREMITIES if r in draft.joints]
    for role, j in body_plan(ctx.skeleton, ctx.eligible).items():
        kinds = ctx.classes[j].kinds()
        if kinds and role.rpartition("_")[2] not in kinds:
            continue
        if not any(ctx.is_ancestor(j, k) or ctx.is_ancestor(k, j) for k in known):
            draft.put(role, j)


def _how(ctx: Context, draft: Draft) -> dict[str, str]:
    """role -> "override" | "name" (the joint's name may take the role) | "topology"."""
    how = {}
    for role, j in draft.joints.items():
        prefix, _, part = role.partition("_")
        sided = prefix in _SIDES
        cls = ctx.classes[j]
        by_name = (
            cls.side == (prefix if sided else None) and (part if sided else role) in cls.kinds()
        )
        how[role] = "override" if role in draft.overridden else "name" if by_name else "topology"
    return how


def infer(skeleton: Skeleton, overrides: Mapping[str, str] | None = None) -> JointRoles:
    """Infer the semantic joint roles of ``skeleton`` (see the module docstring).

    Args:
        skeleton: the hierarchy; ``names``, ``parents`` and (for nameless rigs only)
            ``offsets`` are used. Not modified.
        overrides: role -> joint name, applied first and never second-guessed.

    Returns:
        The resolved roles, the spine chain, what is unresolved and how each role was found.

    Raises:
        SkeletonError: an override names an unknown role, a joint that does not
            exist (or exists twice), or an end site.
    """
    ctx = Context.build(skeleton)
    draft = Draft()
    _apply_overrides(ctx, draft, overrides or {})
    _named_extremities(ctx, draft)
    if any(r not in draft.joints for r in EXTREMITIES):
        _planned_extremities(ctx, draft)
    _find_hips(ctx, draft)
    for side in _SIDES:
        resolve_limb(ctx, draft, side, _ARM)
        resolve_limb(ctx, draft, side, _LEG)
    _find_toes(ctx, draft)
    _find_chest(ctx, draft)
    _find_neck(ctx, draft)
    chain = _spine_chain(ctx, draft)
    if chain and chain[0] != draft.joints.get("chest"):
        draft.put("spine", chain[0])
    joints = {r: draft.joints[r] for r in ROLES if r in draft.joints}
    return JointRoles(
        joints=MappingProxyType(joints),
        spine_chain=tuple(int(j) for j in chain),
        unresolved=tuple(r for r in ROLES if r not in joints),
        how=MappingProxyType({r: h for r, h in _how(ctx, draft).items() if r in joints}),
    )
