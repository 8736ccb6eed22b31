"""The pieces of a character's body (:mod:`motioncore.character.rig`): each glTF
triangle primitive put at rest in the world and skinned to the character's skeleton,
to be joined into one :class:`~motioncore.character.mannequin.SkinnedMesh`
(:func:`~motioncore.character.mannequin.joined`).

Conventions: ``V`` vertices, ``J`` joints; metres, Y up; at most four joints a vertex.
"""

from __future__ import annotations

import numpy as np
import pygltflib
from numpy.typing import NDArray

from motioncore.character.gltf_read import Document
from motioncore.character.mannequin import Part
from motioncore.errors import CharacterError

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

WEIGHT_SUM_TOLERANCE = 0.01
"""Weights whose sum is further than this from 1 are normalised, with a warning."""


def skinned_part(
    document: Document,
    primitive: pygltflib.Primitive,
    skinning: FloatArray,
    slots: IntArray,
    warnings: list[str],
) -> Part:
    """A skinned primitive at rest: each vertex by ``Σ w · skinning[slot]``
    (``skinning [slots, 4, 4]``: each of the skin's joints' world at rest times its
    inverse bind; ``slots``: each slot's skeleton joint)."""
    attributes = primitive.attributes
    if attributes.POSITION is None or attributes.JOINTS_0 is None or attributes.WEIGHTS_0 is None:
        raise CharacterError("a skinned primitive lacks POSITION, JOINTS_0 or WEIGHTS_0")
    positions = document.accessor(attributes.POSITION)[:, :3]
    slot = document.accessor(attributes.JOINTS_0).astype(np.int64)
    if slot.min(initial=0) < 0 or slot.max(initial=0) >= len(slots):
        raise CharacterError("JOINTS_0 names a joint the skin does not have")
    weights = np.clip(document.accessor(attributes.WEIGHTS_0), 0.0, None)
    total = weights.sum(axis=1, keepdims=True)
    if np.any(np.abs(total - 1.0) > WEIGHT_SUM_TOLERANCE):
        warnings.append(
            f"skin weights summing to {float(total.min()):.2f}–{float(total.max()):.2f} "
            "were normalised to 1"
        )
    weights = np.where(total > 0, weights / np.where(total > 0, total, 1.0), [[1.0, 0, 0, 0]])
    joints = slots[slot]
    matrices = np.einsum("vk,vkab->vab", weights, skinning[slot])  # [V, 4, 4]
    placed = np.einsum("vab,vb->va", matrices[:, :3, :3], positions) + matrices[:, :3, 3]
    normals = _normals(document, primitive, positions)
    turned = np.einsum("vab,vb->va", matrices[:, :3, :3], normals)
    triangles = _triangles(document, primitive, len(positions))
    return Part(placed, _unit(turned, placed, triangles), triangles, joints, weights)


def rigid_part(
    document: Document, primitive: pygltflib.Primitive, world: FloatArray, joint: int
) -> Part:
    """A rigid primitive of a node whose rest transform is ``world [4, 4]``, bound
    whole to ``joint``."""
    if primitive.attributes.POSITION is None:
        raise CharacterError("a mesh primitive has no POSITION")
    positions = document.accessor(primitive.attributes.POSITION)[:, :3]
    placed = positions @ world[:3, :3].T + world[:3, 3]
    normals = _normals(document, primitive, positions) @ world[:3, :3].T
    triangles = _triangles(document, primitive, len(positions))
    joints = np.zeros((len(positions), 4), dtype=np.int64)
    joints[:, 0] = joint
    weights = np.zeros((len(positions), 4))
    weights[:, 0] = 1.0
    return Part(placed, _unit(normals, placed, triangles), triangles, joints, weights)


def _triangles(document: Document, primitive: pygltflib.Primitive, vertices: int) -> IntArray:
    if primitive.indices is None:
        flat = np.arange(vertices - vertices % 3, dtype=np.int64)
    else:
        flat = document.accessor(primitive.indices)[:, 0].astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= vertices):
        raise CharacterError("a mesh's indices name vertices it does not have")
    return flat[: flat.size - flat.size % 3].reshape(-1, 3)


def _normals(
    document: Document, primitive: pygltflib.Primitive, positions: FloatArray
) -> FloatArray:
    if primitive.attributes.NORMAL is not None:
        return document.accessor(primitive.attributes.NORMAL)[:, :3]
    return np.zeros_like(positions)  # made from the faces (_unit)


def _unit(normals: FloatArray, positions: FloatArray, triangles: IntArray) -> FloatArray:
    """``normals`` made unit; where one is zero, the mean of its faces' normals."""
    length = np.linalg.norm(normals, axis=1)
    if np.any(length < 1e-9) and triangles.size:
        a, b, c = (positions[triangles[:, i]] for i in range(3))
        face = np.cross(b - a, c - a)
        summed = np.zeros_like(positions)
        for i in range(3):
            np.add.at(summed, triangles[:, i], face)
        normals = np.where(length[:, None] < 1e-9, summed, normals)
        length = np.linalg.norm(normals, axis=1)
    fallback = np.array([0.0, 1.0, 0.0])
    unit: FloatArray = np.where(
        length[:, None] > 1e-12, normals / np.maximum(length, 1e-12)[:, None], fallback
    )
    return unit
