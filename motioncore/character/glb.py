"""A clip on a skinned mesh as a binary glTF 2.0 file (GLB), written with pygltflib.

The file holds one scene: a node per joint of the clip's skeleton (named as in the
clip, local translation and rotation of the rest pose: the offsets and the identity),
the skin over all of them (inverse bind matrices from the mesh), the skinned mesh on a
node of its own at the scene's root, a neutral material, and one animation: every
joint's local rotation at every frame and the local translation of every joint whose
translation moves (the root, or every joint of a rig that animates its offsets),
linearly interpolated, times in seconds from 0. :func:`rest_glb_bytes` writes the same
without the animation (the players pose the body themselves).

Why pygltflib (a maintained library that reads and writes the glTF 2.0 JSON and its
binary chunk) rather than three.js' GLTFExporter in the browser: the server writes the
file, so every result can be downloaded through the API by a studio's script as well
as by a person, without a browser.

Conventions: metres, seconds, Y up (glTF's own); quaternions stored ``x, y, z, w``.
"""

from __future__ import annotations

import numpy as np
import pygltflib
from numpy.typing import NDArray

from motioncore import quat
from motioncore.character.mannequin import SkinnedMesh
from motioncore.clip import Clip, Skeleton

FloatArray = NDArray[np.float64]

BASE_COLOUR = (0.74, 0.76, 0.80, 1.0)
"""The mannequin's colour (linear RGBA): a neutral light grey-blue."""
ROUGHNESS = 0.65
MOVES_M = 1e-6
"""A joint whose local translation moves more than this (metres) gets a channel."""

_FLOAT, _USHORT, _UINT = 5126, 5123, 5125
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963


class _Blob:
    """The binary chunk being built, and the buffer views and accessors into it."""

    def __init__(self, gltf: pygltflib.GLTF2) -> None:
        self.gltf = gltf
        self.data = bytearray()

    def add(
        self,
        array: NDArray[np.generic],
        kind: str,
        component: int,
        *,
        target: int | None = None,
        bounds: bool = False,
    ) -> int:
        """Append ``array`` (rows are elements) and an accessor to it; its index."""
        while len(self.data) % 4:
            self.data.append(0)
        raw = np.ascontiguousarray(array).tobytes()
        view = pygltflib.BufferView(
            buffer=0, byteOffset=len(self.data), byteLength=len(raw), target=target
        )
        self.data.extend(raw)
        self.gltf.bufferViews.append(view)
        rows = array.reshape(array.shape[0], -1)
        accessor = pygltflib.Accessor(
            bufferView=len(self.gltf.bufferViews) - 1,
            componentType=component,
            count=int(array.shape[0]),
            type=kind,
            min=rows.min(axis=0).tolist() if bounds else None,
            max=rows.max(axis=0).tolist() if bounds else None,
        )
        self.gltf.accessors.append(accessor)
        return len(self.gltf.accessors) - 1


def glb_bytes(clip: Clip, mesh: SkinnedMesh, *, name: str = "mannequin") -> bytes:
    """``clip`` playing on ``mesh`` (skinned to ``clip.skeleton`` in its rest pose) as
    GLB bytes (see the module docstring)."""
    gltf, blob = _skinned(clip.skeleton, mesh, name)
    gltf.animations.append(_animation(blob, clip))
    return _saved(gltf, blob)


def rest_glb_bytes(skeleton: Skeleton, mesh: SkinnedMesh, *, name: str = "mannequin") -> bytes:
    """``mesh`` skinned to ``skeleton`` in its rest pose, without animation, as GLB
    bytes: the body a player poses itself (``static/js/viewer/mannequin.js``)."""
    gltf, blob = _skinned(skeleton, mesh, name)
    return _saved(gltf, blob)


def _skinned(skeleton: Skeleton, mesh: SkinnedMesh, name: str) -> tuple[pygltflib.GLTF2, _Blob]:
    """The document with the joints' nodes, the skin, the material and the mesh."""
    gltf = pygltflib.GLTF2(asset=pygltflib.Asset(generator="Kinetograph motioncore"))
    blob = _Blob(gltf)
    children: list[list[int]] = [[] for _ in skeleton.names]
    for joint, parent in enumerate(skeleton.parents):
        if parent >= 0:
            children[int(parent)].append(joint)
    for joint, joint_name in enumerate(skeleton.names):
        gltf.nodes.append(
            pygltflib.Node(
                name=joint_name,
                translation=skeleton.offsets[joint].astype(float).tolist(),
                children=children[joint] or None,
            )
        )
    bind = np.transpose(mesh.inverse_bind, (0, 2, 1)).astype(np.float32)  # column-major
    gltf.skins.append(
        pygltflib.Skin(
            joints=list(range(skeleton.num_joints)),
            inverseBindMatrices=blob.add(bind.reshape(-1, 16), "MAT4", _FLOAT),
            skeleton=int(skeleton.roots[0]),
        )
    )
    gltf.materials.append(
        pygltflib.Material(
            name=f"{name} material",
            pbrMetallicRoughness=pygltflib.PbrMetallicRoughness(
                baseColorFactor=list(BASE_COLOUR), metallicFactor=0.0, roughnessFactor=ROUGHNESS
            ),
        )
    )
    gltf.meshes.append(pygltflib.Mesh(name=name, primitives=[_primitive(blob, mesh)]))
    gltf.nodes.append(pygltflib.Node(name=name, mesh=0, skin=0))
    roots = [int(r) for r in skeleton.roots]
    gltf.scenes.append(pygltflib.Scene(nodes=[*roots, len(gltf.nodes) - 1]))
    gltf.scene = 0
    return gltf, blob


def _saved(gltf: pygltflib.GLTF2, blob: _Blob) -> bytes:
    gltf.buffers.append(pygltflib.Buffer(byteLength=len(blob.data)))
    gltf.set_binary_blob(bytes(blob.data))
    return bytes(b"".join(gltf.save_to_bytes()))


def _primitive(blob: _Blob, mesh: SkinnedMesh) -> pygltflib.Primitive:
    weights = mesh.weights / mesh.weights.sum(axis=1, keepdims=True)
    joints = np.where(weights > 0.0, mesh.joints, 0)  # an unused slot names joint 0
    attributes = pygltflib.Attributes(
        POSITION=blob.add(
            mesh.positions.astype(np.float32), "VEC3", _FLOAT, target=_ARRAY_BUFFER, bounds=True
        ),
        NORMAL=blob.add(mesh.normals.astype(np.float32), "VEC3", _FLOAT, target=_ARRAY_BUFFER),
        JOINTS_0=blob.add(joints.astype(np.uint16), "VEC4", _USHORT, target=_ARRAY_BUFFER),
        WEIGHTS_0=blob.add(weights.astype(np.float32), "VEC4", _FLOAT, target=_ARRAY_BUFFER),
    )
    indices = blob.add(
        mesh.triangles.astype(np.uint32).reshape(-1, 1),
        "SCALAR",
        _UINT,
        target=_ELEMENT_ARRAY_BUFFER,
    )
    return pygltflib.Primitive(attributes=attributes, indices=indices, material=0)


def _animation(blob: _Blob, clip: Clip) -> pygltflib.Animation:
    times = (np.arange(clip.num_frames) / clip.fps).astype(np.float32).reshape(-1, 1)
    time_input = blob.add(times, "SCALAR", _FLOAT, bounds=True)
    samplers: list[pygltflib.AnimationSampler] = []
    channels: list[pygltflib.AnimationChannel] = []

    def channel(joint: int, path: str, values: FloatArray, kind: str) -> None:
        output = blob.add(values.astype(np.float32), kind, _FLOAT)
        samplers.append(
            pygltflib.AnimationSampler(input=time_input, output=output, interpolation="LINEAR")
        )
        target = pygltflib.AnimationChannelTarget(node=joint, path=path)
        channels.append(pygltflib.AnimationChannel(sampler=len(samplers) - 1, target=target))

    rotations = quat.unroll(quat.normalize(clip.rotations), axis=0)
    for joint in range(clip.skeleton.num_joints):
        channel(joint, "rotation", rotations[:, joint][:, [1, 2, 3, 0]], "VEC4")
        moves = clip.translations[:, joint] - clip.skeleton.offsets[joint]
        if np.abs(moves).max() > MOVES_M:
            channel(joint, "translation", clip.translations[:, joint], "VEC3")
    return pygltflib.Animation(name="motion", samplers=samplers, channels=channels)
