"""What role inference reads of one skeleton, and the roles it has found so far.

Shared by the steps of :func:`motioncore.skeleton.roles.infer` (the limb chains:
:mod:`motioncore.skeleton.limbs`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import takewhile

import numpy as np
from numpy.typing import NDArray

from motioncore.clip import Skeleton
from motioncore.skeleton.names import NameClass, Side, classify

EXTREMITIES: tuple[str, ...] = ("left_foot", "right_foot", "left_hand", "right_hand", "head")
"""The roles found first (by name, else by the body plan): feet, hands and head."""


@dataclass
class Context:
    """Per-skeleton facts shared by the resolution steps (read-only)."""

    skeleton: Skeleton
    classes: list[NameClass]
    eligible: NDArray[np.bool_]  # not an end site, not a twist/share/helper bone
    paths: list[tuple[int, ...]]  # root..j inclusive
    numbers: list[tuple[int, ...]]  # the numbers in each name: "toe1-1.L" -> (1, 1)

    @classmethod
    def build(cls, skeleton: Skeleton) -> Context:
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


class Draft:
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
