"""Limb chains (step 5 of :func:`motioncore.skeleton.roles.infer`): the joints between
the hips and a hand or foot, matched to the limb's parts by names, then by topology.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from motioncore.skeleton.context import EXTREMITIES, Context, Draft
from motioncore.skeleton.names import Side


def _limb_chain(ctx: Context, draft: Draft, end: int) -> list[int]:
    """Eligible joints above ``end`` (and ``end``) that lead to no other extremity or hips."""
    others = [draft.joints[r] for r in (*EXTREMITIES, "hips") if r in draft.joints]
    others = [o for o in others if o != end]
    path = ctx.paths[end]
    own = [j for j in path if not any(ctx.is_ancestor(j, o) for o in others)]
    return [j for j in own if ctx.eligible[j] or j == end]


def _fits(filled: Mapping[str, int], slots: Sequence[str], kind: str, at: int) -> bool:
    """True when chain position ``at`` for ``kind`` keeps the ``filled`` slots in order."""
    k = slots.index(kind)
    return all((slots.index(s) < k) == (p < at) for s, p in filled.items() if s != kind)


def _match_names(
    ctx: Context,
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


def _limb_anchor(ctx: Context, draft: Draft, side: Side, parts: Sequence[str]) -> int | None:
    """Deepest joint of a limb without its hand/foot: set already (an override) or named as
    one of ``parts``, and leading to no extremity or hips (``None`` if there is none)."""
    others = [draft.joints[r] for r in (*EXTREMITIES, "hips") if r in draft.joints]
    known = [draft.joints[f"{side}_{p}"] for p in parts if f"{side}_{p}" in draft.joints]
    named = [j for p in parts for j in ctx.named(p, side) if ctx.eligible[j]]
    free = [j for j in (*known, *named) if not any(ctx.is_ancestor(j, o) for o in others)]
    return max(free, key=lambda j: (len(ctx.paths[j]), -j), default=None)


def resolve_limb(ctx: Context, draft: Draft, side: Side, slots: Sequence[str]) -> None:
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
