"""Guessing a BVH file's unit and up axis from the body it describes.

Both guesses look at the posed body, not the zero pose (many rigs, e.g. the
iClone and Bandai Namco ones, use bone-local offsets whose zero pose is not a
standing figure): forward kinematics of up to 64 frames spread over the clip
gives per-frame joint extents along each axis.

* **Up axis**: of Y and Z (X is sideways in both conventions), the one along
  which the body's median per-frame extent is larger — a person is taller
  than deep, even mid-stride. Confidence: ``1 - smaller / larger``.
* **Unit**: the candidate that turns the median standing extent (lowest to
  highest joint along the up axis, end effectors included) into a height
  closest, on a log scale, to :data:`REFERENCE_EXTENT_M` — the geometric mean
  measured over the project's BVH test corpus (1.3–2.0 m). Confidence is the
  softmax weight of the best candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import fk
from motioncore.clip import UpAxis

FloatArray = NDArray[np.float64]

METRES_PER_UNIT: dict[str, float] = {
    "m": 1.0,
    "dm": 0.1,
    "cm": 0.01,
    "mm": 0.001,
    "inch": 0.0254,
    "cmu": 0.0254 / 0.45,
}
"""Candidate units. ``cmu`` is the CMU ASF length unit (``:units length 0.45``:
1/0.45 inch ≈ 5.64 cm), kept by the cgspeed BVH conversions."""

REFERENCE_EXTENT_M = 1.55
"""Typical lowest-to-highest joint extent of a standing or walking adult (metres)."""
_LOG_SIGMA = 0.25
_PURE_AXIS = 0.995
UP_AXIS_INDEX: dict[str, int] = {"Y": 1, "Z": 2}


@dataclass(frozen=True)
class Guess:
    """A detected value with a confidence in ``[0, 1]`` and the evidence behind it."""

    value: str
    confidence: float
    evidence: str

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "value": self.value,
            "confidence": round(self.confidence, 3),
            "evidence": self.evidence,
        }


def body_joints(parents: NDArray[np.integer]) -> NDArray[np.int64]:
    """Joints that belong to the body: all but *carrier* roots.

    A root with a single child (iClone ``RL_BoneRoot``, Bandai Namco
    ``joint_Root``) is a reference node that may stay on the floor while the body
    walks away; it is left out of body measurements.
    """
    parents = np.asarray(parents)
    keep = np.ones(len(parents), dtype=bool)
    for root in np.flatnonzero(parents < 0):
        if np.count_nonzero(parents == root) == 1:
            keep[root] = False
    return np.flatnonzero(keep)


def median_extents(positions: FloatArray) -> FloatArray:
    """Median over frames of the per-frame joint extent ``[3]`` of ``positions [F, J, 3]``."""
    extent = positions.max(axis=1) - positions.min(axis=1)
    return np.asarray(np.median(extent, axis=0), dtype=np.float64)


def guess_up_axis(positions: FloatArray) -> Guess:
    """Up axis of a posed body, ``positions [F, J, 3]`` in file axes (any unit)."""
    extents = median_extents(positions)
    y, z = float(extents[1]), float(extents[2])
    axis: UpAxis = "Y" if y >= z else "Z"
    larger, smaller = max(y, z), min(y, z)
    confidence = 0.0 if larger <= 0 else 1.0 - smaller / larger
    evidence = f"median body extent along Y {y:.4g}, along Z {z:.4g} (file units)"
    return Guess(axis, confidence, evidence)


def guess_rest_up_axis(offsets: FloatArray, parents: NDArray[np.integer]) -> Guess:
    """Up axis of the *zero pose* (OFFSETs only), which may differ from the world's.

    Some files author the rest skeleton in one convention and turn it upright with
    a root rotation (iClone ``RL_BoneRoot`` files: offsets Z-up, root rotated -90°
    about X into a Y-up world). Evidence: the OFFSET lifting the body off the root
    (the root's own, or its single child's for a carrier root) when it points
    along Y or Z alone; otherwise the larger zero-pose body extent of Y and Z.
    """
    offsets = np.asarray(offsets, dtype=np.float64)
    parents = np.asarray(parents)
    root = int(np.flatnonzero(parents < 0)[0])
    children = np.flatnonzero(parents == root)
    lift = offsets[children[0]] if len(children) == 1 else offsets[root]
    norm = float(np.linalg.norm(lift))
    for axis in ("Y", "Z"):
        if norm > 1e-9 and abs(float(lift[UP_AXIS_INDEX[axis]])) >= _PURE_AXIS * norm:
            evidence = f"root-to-body OFFSET {np.round(lift, 4).tolist()} (file units)"
            return Guess(axis, abs(float(lift[UP_AXIS_INDEX[axis]])) / norm, evidence)
    rest = fk.rest_positions(offsets, parents)
    guess = guess_up_axis(rest[None, body_joints(parents)])
    return Guess(guess.value, guess.confidence, "zero-pose " + guess.evidence)


def guess_unit(positions: FloatArray, up_axis: str) -> Guess:
    """Unit of ``positions [F, J, 3]`` (file units), judged by the body's height."""
    height = float(median_extents(positions)[UP_AXIS_INDEX[up_axis]])
    if height <= 0:
        return Guess("m", 0.0, "the body has no height; metres assumed")
    names = list(METRES_PER_UNIT)
    distance = np.array([np.log(height * METRES_PER_UNIT[n] / REFERENCE_EXTENT_M) for n in names])
    weights = np.exp(-0.5 * (distance / _LOG_SIGMA) ** 2)
    best = int(np.argmin(np.abs(distance)))
    total = float(weights.sum())
    confidence = float(weights[best] / total) if total > 0 else 0.0
    metres = height * METRES_PER_UNIT[names[best]]
    evidence = f"body height {height:.4g} file units = {metres:.2f} m if in {names[best]}"
    return Guess(names[best], confidence, evidence)
