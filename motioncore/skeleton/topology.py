"""Topology and rest-pose geometry for :mod:`motioncore.skeleton` when names say nothing.

Only used for extremities (feet, hands, head) that no name rule found; the caller
drops a planned extremity whose name says another part (an arm chain ending at
``forearm.L`` gives that joint as its "hand"). The plan assumes a humanoid laid out
the usual way:

* **hips** = the first joint, going down from the largest root, with two or more
  eligible children (floor roots with a single child are skipped);
* the **torso** is the hips branch with the most joints; the **chest** is where it
  first splits into two or more branches of two joints or more (single-joint
  children such as breasts are passed by) and must have three children at least
  (neck and two arms); the other two hips branches (or the two branches of a single
  pelvis branch) are the **legs**;
* the **neck branch** is the chest child whose chain points most along
  ``up = chest - hips``; the two largest other children are the **arms**;
* along a leg's main chain (the child with the largest subtree at each step) the
  foot is the first joint, from the third on, within a quarter of the leg's drop of
  its lowest point (ankles sit at about a tenth, knees at half), the toe the next;
  along an arm's main chain the hand is the first joint from the third on with
  two or more eligible children (fingers), else the last joint;
* the head is the end of the neck branch's single-child chain.

Left and right come from the rest pose (offsets summed along parents, no
rotations): ``left = up x forward`` (right-handed), ``forward`` = the mean
foot -> toe direction when the legs have toes, else +Z (the BVH convention of a
character facing +Z), or -Y when +Z is nearly the up axis (Z-up rigs facing -Y,
as Blender and MakeHuman export). The chain whose extremity lies further along
``left`` is the left one. Units do not matter (directions and ratios only).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from motioncore.clip import Skeleton

FloatArray = NDArray[np.float64]
_PARALLEL_COS = 0.9
_ANKLE_FRACTION = 0.25
_FLAT_FRACTION = 0.3  # toes pointing this little sideways of "up" give no facing


class _Tree:
    """Eligible-joint tree helpers over a skeleton."""

    def __init__(self, skeleton: Skeleton, eligible: NDArray[np.bool_]) -> None:
        self.sk = skeleton
        self.eligible = eligible
        parents = skeleton.parents.tolist()
        self.kids: list[list[int]] = [[] for _ in parents]
        for j, p in enumerate(parents):
            if p >= 0 and eligible[j]:
                self.kids[p].append(j)
        self.size = np.zeros(len(parents), dtype=np.int64)
        for j in range(len(parents) - 1, -1, -1):  # parents precede children
            self.size[j] += int(eligible[j])
            if parents[j] >= 0:
                self.size[parents[j]] += self.size[j]
        self.pos = np.zeros((len(parents), 3))
        for j, p in enumerate(parents):
            self.pos[j] = skeleton.offsets[j] + (self.pos[p] if p >= 0 else 0.0)

    def first_branch(self, joint: int) -> int:
        """Go down while the joint has exactly one eligible child."""
        while len(self.kids[joint]) == 1:
            joint = self.kids[joint][0]
        return joint

    def chest(self, torso: int) -> int:
        """Go down the torso while one child leads to more than itself (skips breasts, eyes)."""
        while len(big := [c for c in self.kids[torso] if self.size[c] >= 2]) == 1:
            torso = big[0]
        return torso

    def main_path(self, joint: int) -> list[int]:
        """``joint`` then the eligible child with the largest subtree, down to a leaf."""
        path = [joint]
        while self.kids[path[-1]]:
            path.append(max(self.kids[path[-1]], key=lambda c: int(self.size[c])))
        return path

    def direction(self, joint: int, child: int) -> FloatArray:
        """Unit vector from ``joint`` to the end of ``child``'s main path."""
        return _unit(self.pos[self.main_path(child)[-1]] - self.pos[joint])


def _unit(v: FloatArray) -> FloatArray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def _foot(tree: _Tree, leg: int, up: FloatArray) -> tuple[int | None, int | None]:
    """(foot, toe) of a leg chain: the first joint near the chain's lowest point, the next one."""
    path = tree.main_path(leg)
    height = tree.pos[path] @ up
    drop = float(height[0] - height.min())
    if len(path) < 3 or drop <= 0:
        return None, None
    near = [i for i in range(2, len(path)) if height[i] - height.min() <= _ANKLE_FRACTION * drop]
    if not near:
        return None, None
    k = near[0]
    return path[k], (path[k + 1] if k + 1 < len(path) else None)


def _hand(tree: _Tree, arm: int) -> int | None:
    """Hand of an arm chain: first joint from the third on with fingers, else the last."""
    path = tree.main_path(arm)
    if len(path) < 3:
        return None
    return next((j for j in path[2:] if len(tree.kids[j]) >= 2), path[-1])


def _left_axis(
    tree: _Tree, up: FloatArray, feet: list[tuple[int | None, int | None]]
) -> FloatArray:
    """``up x forward`` with ``forward`` from the toes, else +Z (or -Y for Z-up rigs)."""
    dirs = [tree.pos[t] - tree.pos[f] for f, t in feet if f is not None and t is not None]
    toes = np.mean(dirs, axis=0) if dirs else np.zeros(3)
    forward = toes - (toes @ up) * up
    if np.linalg.norm(forward) <= _FLAT_FRACTION * np.linalg.norm(toes):
        z = np.array([0.0, 0.0, 1.0])
        guess = z if abs(float(z @ up)) < _PARALLEL_COS else np.array([0.0, -1.0, 0.0])
        forward = guess - (guess @ up) * up
    return _unit(np.cross(up, _unit(forward)))


def _pair(tree: _Tree, left: FloatArray, ends: list[int | None], kind: str) -> dict[str, int]:
    """``{"left_<kind>": j, "right_<kind>": k}`` from two extremities by the left axis."""
    if None in ends or len(ends) != 2:
        return {}
    a, b = (int(e) for e in ends if e is not None)
    if float((tree.pos[a] - tree.pos[b]) @ left) < 0:
        a, b = b, a
    return {f"left_{kind}": a, f"right_{kind}": b}


def body_plan(skeleton: Skeleton, eligible: NDArray[np.bool_]) -> dict[str, int]:
    """Extremities by topology and rest geometry: role -> joint (possibly empty).

    Args:
        skeleton: the hierarchy.
        eligible: ``[J]`` joints that may take a role (no end sites, no twist/helper bones).

    Returns:
        Some of ``head``, ``left_foot``, ``right_foot``, ``left_hand``, ``right_hand``.
    """
    tree = _Tree(skeleton, eligible)
    roots = [int(r) for r in skeleton.roots if eligible[r]]
    if not roots:
        return {}
    hips = tree.first_branch(max(roots, key=lambda r: int(tree.size[r])))
    branches = tree.kids[hips]
    torso = max(branches, key=lambda c: int(tree.size[c]), default=None)
    if torso is None or len(tree.kids[tree.chest(torso)]) < 3:
        return {}
    chest = tree.chest(torso)
    legs = [c for c in branches if c != torso]
    legs = tree.kids[tree.first_branch(legs[0])] if len(legs) == 1 else legs
    up = _unit(tree.pos[chest] - tree.pos[hips])
    neck = max(tree.kids[chest], key=lambda c: float(tree.direction(chest, c) @ up))
    arms = sorted((c for c in tree.kids[chest] if c != neck), key=lambda c: -int(tree.size[c]))[:2]
    feet = [_foot(tree, c, up) for c in legs] if len(legs) == 2 else []
    left = _left_axis(tree, up, feet)
    plan = {"head": tree.first_branch(neck)}
    plan |= _pair(tree, left, [f for f, _ in feet], "foot")
    plan |= _pair(tree, left, [_hand(tree, c) for c in arms], "hand")
    return plan
