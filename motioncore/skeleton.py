"""Semantic joint roles: which joint is the hips, a foot, a hand, ...

Every analysis that needs a foot, a hand or a segment-mass table goes through
:func:`infer`, never through a hard-coded joint name.

Conventions: joint indices refer to ``Skeleton.names``; end effectors (``End
Site``) are never roles. Offsets are only used as directions and length ratios
of the rest pose (zero rotations), so units do not matter.

How roles are found, in this order (each step only fills what is still empty;
a joint carries one role at most, except through overrides):

1. **overrides** (role -> joint name), checked strictly;
2. **extremities by name** (:mod:`motioncore._role_names`): feet, hands and head
   are the topmost joints whose names say so (``LeftFoot``, ``lAnkle``,
   ``CC_Base_L_Hand``, ``wrist.L``; ties go to the lowest number in the name);
3. **extremities by topology and rest geometry**, only where names said nothing
   (:func:`motioncore._role_topology.body_plan`, which states its assumptions), and
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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import takewhile
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

from motioncore._role_names import NameClass, Side, classify
from motioncore._role_topology import body_plan
from motioncore.clip import Skeleton
from motioncore.errors import SkeletonError

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

_EXTREMITIES: tuple[str, ...] = ("left_foot", "right_foot", "left_hand", "right_hand", "head")
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


@dataclass
class _Context:
    """Per-skeleton facts shared by the resolution steps (read-only)."""

    skeleton: Skeleton
    classes: list[NameClass]
    eligible: NDArray[np.bool_]  # not an end site, not a twist/share/helper bone
    paths: list[tuple[int, ...]]  # root..j inclusive
    numbers: list[tuple[int, ...]]  # the numbers in each name: "toe1-1.L" -> (1, 1)

    @classmethod
    def build(cls, skeleton: Skeleton) -> _Context:
        classes = [classify(n) for n in skeleton.names]
        end = skeleton.end_site
        eligible = ~end & ~np.array([c.excluded for c in classes], dtype=bool)
        paths: list[tuple[int, ...]] = []
        for j, p in enumerate(skeleton.parents.tolist()):
            paths.append((*paths[p], j) if p >= 0 else (j,))
        numbers = [tuple(int(d) for d in re.findall(r"\d+", n)) for n in skeleton.names]
        return cls(skeleton, classes, eligible, paths, numbers)

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when ``a`` is ``b`` or above it."""
        return a in self.paths[b]

    def named(self, kind: str, side: Side | None, within: Sequence[int] | None = None) -> list[int]:
        """Non-end-site joints whose name may take ``kind`` on ``side``, topmost first."""
        pool = range(self.skeleton.num_joints) if within is None else within
        end = self.skeleton.end_site
        hits = [
            j
            for j in pool
            if not end[j] and self.classes[j].side == side and kind in self.classes[j].kinds()
        ]
        return sorted(hits, key=lambda j: (len(self.paths[j]), self.numbers[j], j))

    def lca(self, joints: Sequence[int]) -> int | None:
        """Lowest common ancestor of ``joints`` (``None`` if empty or in different trees)."""
        levels = zip(*(self.paths[j] for j in joints), strict=False)
        common = list(takewhile(lambda level: len(set(level)) == 1, levels))
        return common[-1][0] if common else None


class _Draft:
    """Roles found so far; a joint takes one role unless overridden."""

    def __init__(self) -> None:
        self.joints: dict[str, int] = {}
        self.overridden: set[str] = set()

    def used(self, joint: int) -> bool:
        return joint in self.joints.values()

    def put(self, role: str, joint: int | None) -> None:
        """Set ``role`` unless it is set already or ``joint`` is taken (or ``None``)."""
        if joint is not None and role not in self.joints and not self.used(joint):
            self.joints[role] = joint


def _apply_overrides(ctx: _Context, draft: _Draft, overrides: Mapping[str, str]) -> None:
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


def _named_extremities(ctx: _Context, draft: _Draft) -> None:
    """Feet, hands and head by name (topmost match)."""
    for side in _SIDES:
        for kind in ("foot", "hand"):
            draft.put(f"{side}_{kind}", next(iter(ctx.named(kind, side)), None))
    draft.put("head", next(iter(ctx.named("head", None)), None))


def _find_hips(ctx: _Context, draft: _Draft) -> None:
    """Hips = lowest common ancestor of the extremities if a foot is known, else hips-named."""
    ends = [draft.joints[r] for r in _EXTREMITIES if r in draft.joints]
    if "left_foot" in draft.joints or "right_foot" in draft.joints:
        draft.put("hips", ctx.lca(ends))
        return
    above = [j for j in ctx.named("hips", None) if all(ctx.is_ancestor(j, e) for e in ends)]
    draft.put("hips", above[-1] if above else None)


def _limb_chain(ctx: _Context, draft: _Draft, end: int) -> list[int]:
    """Eligible joints above ``end`` (and ``end``) that lead to no other extremity or hips."""
    others = [draft.joints[r] for r in (*_EXTREMITIES, "hips") if r in draft.joints]
    others = [o for o in others if o != end]
    path = ctx.paths[end]
    own = [j for j in path if not any(ctx.is_ancestor(j, o) for o in others)]
    return [j for j in own if ctx.eligible[j] or j == end]


def _fits(filled: Mapping[str, int], slots: Sequence[str], kind: str, at: int) -> bool:
    """True when chain position ``at`` for ``kind`` keeps the ``filled`` slots in order."""
    k = slots.index(kind)
    return all((slots.index(s) < k) == (p < at) for s, p in filled.items() if s != kind)


def _match_names(
    ctx: _Context,
    chain: list[int],
    side: Side,
    slots: Sequence[str],
    filled: dict[str, int],
    taken: set[int],
) -> None:
    """Fill ``filled`` (slot -> chain position) from names, strong names before weak ones."""
    for weak in (False, True):
        for at, j in enumerate(chain):
            cls = ctx.classes[j]
            if cls.side != side or cls.weak != weak or at in taken or at in filled.values():
                continue
            kinds = [k for k in cls.kinds() if k in slots and k not in filled]
            kind = next((k for k in kinds if _fits(filled, slots, k, at)), None)
            if kind is not None:
                filled[kind] = at


def _match_topology(slots: Sequence[str], filled: dict[str, int], taken: set[int]) -> None:
    """Fill empty slots, bottom up, with the chain joint just above the slot below."""
    for k in range(len(slots) - 2, -1, -1):
        below = filled.get(slots[k + 1])
        if slots[k] in filled or below is None or below == 0:
            continue
        at = below - 1
        if at not in taken and at not in filled.values() and _fits(filled, slots, slots[k], at):
            filled[slots[k]] = at


def _limb_anchor(ctx: _Context, draft: _Draft, side: Side, parts: Sequence[str]) -> int | None:
    """Deepest joint of a limb without its hand/foot: set already (an override) or named as
    one of ``parts``, and leading to no extremity or hips (``None`` if there is none)."""
    others = [draft.joints[r] for r in (*_EXTREMITIES, "hips") if r in draft.joints]
    known = [draft.joints[f"{side}_{p}"] for p in parts if f"{side}_{p}" in draft.joints]
    named = [j for p in parts for j in ctx.named(p, side) if ctx.eligible[j]]
    free = [j for j in (*known, *named) if not any(ctx.is_ancestor(j, o) for o in others)]
    return max(free, key=lambda j: (len(ctx.paths[j]), -j), default=None)


def _resolve_limb(ctx: _Context, draft: _Draft, side: Side, slots: Sequence[str]) -> None:
    """Match the chain above the resolved hand/foot to ``slots`` (top to bottom); without a
    hand/foot, the chain above the limb's deepest other joint, by names only."""
    end = draft.joints.get(f"{side}_{slots[-1]}")
    extremity = end is not None
    if end is None:
        slots = slots[:-1]
        end = _limb_anchor(ctx, draft, side, slots)
        if end is None:
            return
    chain = _limb_chain(ctx, draft, end)
    at = {j: i for i, j in enumerate(chain)}
    mine = {s: draft.joints.get(f"{side}_{s}") for s in slots}
    filled = {s: at[j] for s, j in mine.items() if j in at}
    taken = {at[j] for j in draft.joints.values() if j in at}
    _match_names(ctx, chain, side, slots, filled, taken)
    if extremity:  # topology only counts up from a hand/foot
        _match_topology(slots, filled, taken)
    for s, i in filled.items():
        draft.put(f"{side}_{s}", chain[i])


def _find_toes(ctx: _Context, draft: _Draft) -> None:
    """Toe = topmost toe-named descendant of the foot, else its only eligible child."""
    for side in _SIDES:
        foot = draft.joints.get(f"{side}_foot")
        if foot is None:
            continue
        below = [j for j, path in enumerate(ctx.paths) if foot in path[:-1]]
        named = ctx.named("toe", side, below)
        kids = [int(c) for c in ctx.skeleton.children(foot) if ctx.eligible[c]]
        draft.put(f"{side}_toe", named[0] if named else kids[0] if len(kids) == 1 else None)


def _find_chest(ctx: _Context, draft: _Draft) -> None:
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


def _find_neck(ctx: _Context, draft: _Draft) -> None:
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


def _spine_chain(ctx: _Context, draft: _Draft) -> tuple[int, ...]:
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


def _planned_extremities(ctx: _Context, draft: _Draft) -> None:
    """Extremities that names missed, from :func:`body_plan`, if unrelated to known ones and
    not named as another part (an arm ending at ``forearm.L`` has no hand)."""
    known = [draft.joints[r] for r in _EXTREMITIES if r in draft.joints]
    for role, j in body_plan(ctx.skeleton, ctx.eligible).items():
        kinds = ctx.classes[j].kinds()
        if kinds and role.rpartition("_")[2] not in kinds:
            continue
        if not any(ctx.is_ancestor(j, k) or ctx.is_ancestor(k, j) for k in known):
            draft.put(role, j)


def _how(ctx: _Context, draft: _Draft) -> dict[str, str]:
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
    ctx = _Context.build(skeleton)
    draft = _Draft()
    _apply_overrides(ctx, draft, overrides or {})
    _named_extremities(ctx, draft)
    if any(r not in draft.joints for r in _EXTREMITIES):
        _planned_extremities(ctx, draft)
    _find_hips(ctx, draft)
    for side in _SIDES:
        _resolve_limb(ctx, draft, side, _ARM)
        _resolve_limb(ctx, draft, side, _LEG)
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
