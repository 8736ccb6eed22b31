"""Reading a glTF 2.0 file (``.glb``, or ``.gltf`` with its buffers embedded) with
pygltflib: the document, its accessors as arrays and its nodes' rest transforms.

Only self-contained files are read: a buffer or image that points at another file or a
URL is refused (:class:`~motioncore.errors.CharacterError`), so that reading an upload
never touches the disk or the network.

Conventions: metres and Y up (glTF's own); matrices ``[4, 4]`` acting on column
vectors; quaternions in the file are ``x, y, z, w``.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

import numpy as np
import pygltflib
from numpy.typing import NDArray

from motioncore.errors import CharacterError

FloatArray = NDArray[np.float64]

GLB_MAGIC = b"glTF"
_COMPONENTS = {
    5120: np.int8,
    5121: np.uint8,
    5122: np.int16,
    5123: np.uint16,
    5125: np.uint32,
    5126: np.float32,
}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_NORMALIZED_MAX = {np.int8: 127.0, np.uint8: 255.0, np.int16: 32767.0, np.uint16: 65535.0}
_DATA_URI = "data:"


@dataclass(frozen=True)
class Document:
    """A parsed glTF file and its one binary buffer per ``buffers`` entry."""

    gltf: pygltflib.GLTF2
    buffers: tuple[bytes, ...]

    def accessor(self, index: int) -> NDArray[np.float64]:
        """Accessor ``index`` as ``[count, width]`` float64 (normalised integers scaled
        to ``[0, 1]`` or ``[-1, 1]``; matrices flattened column-major as stored)."""
        accessor = self.gltf.accessors[index]
        if accessor.sparse is not None:
            raise CharacterError(f"accessor {index} is sparse, which is not supported")
        width = _WIDTH[accessor.type]
        dtype = np.dtype(_COMPONENTS[accessor.componentType]).newbyteorder("<")
        if accessor.bufferView is None:
            return np.zeros((accessor.count, width))
        view = self.gltf.bufferViews[accessor.bufferView]
        data = self.buffers[view.buffer]
        start = (view.byteOffset or 0) + (accessor.byteOffset or 0)
        element = width * dtype.itemsize
        stride = view.byteStride or element
        end = start + stride * (accessor.count - 1) + element if accessor.count else start
        if end > min(len(data), (view.byteOffset or 0) + view.byteLength):
            raise CharacterError(f"accessor {index} reads past the end of its buffer")
        raw = np.lib.stride_tricks.as_strided(
            np.frombuffer(data, dtype=np.uint8, count=end - start, offset=start),
            shape=(accessor.count, element),
            strides=(stride, 1),
        )
        values = np.ascontiguousarray(raw).view(dtype).reshape(accessor.count, width)
        out = values.astype(np.float64)
        if accessor.normalized and dtype.type in _NORMALIZED_MAX:
            out = np.maximum(out / _NORMALIZED_MAX[dtype.type], -1.0)
        return out


def read_document(data: bytes) -> Document:
    """The glTF in ``data`` (GLB bytes, or ``.gltf`` JSON whose buffers are data URIs).

    Raises:
        CharacterError: not glTF 2.0, or a buffer or image outside the file.
    """
    try:
        if data[:4] == GLB_MAGIC:
            gltf = pygltflib.GLTF2.load_from_bytes(data)
        else:
            json.loads(data)  # a clear error for what is not JSON at all
            gltf = pygltflib.GLTF2.from_json(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, KeyError, TypeError, AttributeError) as error:
        raise CharacterError(f"not a glTF 2.0 file (.glb or .gltf): {error}") from error
    if not str(gltf.asset.version).startswith("2."):
        raise CharacterError(f"glTF {gltf.asset.version}: only glTF 2.0 is read")
    for image in gltf.images:
        if image.uri and not image.uri.startswith(_DATA_URI):
            raise CharacterError(
                f"image {image.uri!r} is a separate file: upload a .glb or embed it"
            )
    return Document(gltf, tuple(_buffer(gltf, i, b) for i, b in enumerate(gltf.buffers)))


def _buffer(gltf: pygltflib.GLTF2, index: int, buffer: pygltflib.Buffer) -> bytes:
    if buffer.uri is None:  # the GLB's binary chunk
        blob = gltf.binary_blob()
        if blob is None:
            raise CharacterError(f"buffer {index} has no data")
        return bytes(blob)
    if not buffer.uri.startswith(_DATA_URI):
        raise CharacterError(
            f"buffer {index} is the separate file {buffer.uri!r}: upload a .glb or embed it"
        )
    try:
        return base64.b64decode(buffer.uri.split(",", 1)[1], validate=True)
    except (IndexError, ValueError) as error:
        raise CharacterError(f"buffer {index}'s data URI is not base64: {error}") from error


def node_local(node: pygltflib.Node) -> FloatArray:
    """A node's rest transform ``[4, 4]`` (its matrix, or T × R × S)."""
    if node.matrix is not None:
        return np.asarray(node.matrix, dtype=np.float64).reshape(4, 4).T  # column-major
    x, y, z, w = node.rotation if node.rotation is not None else (0.0, 0.0, 0.0, 1.0)
    rotation = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    scale = np.asarray(node.scale if node.scale is not None else (1.0, 1.0, 1.0), dtype=np.float64)
    matrix = np.eye(4)
    matrix[:3, :3] = rotation * scale
    matrix[:3, 3] = node.translation if node.translation is not None else (0.0, 0.0, 0.0)
    return matrix


def node_parents(gltf: pygltflib.GLTF2) -> NDArray[np.int64]:
    """``[N]`` each node's parent node, -1 for the scene roots.

    Raises:
        CharacterError: a node with two parents, or a cycle.
    """
    parents = np.full(len(gltf.nodes), -1, dtype=np.int64)
    for index, node in enumerate(gltf.nodes):
        for child in node.children or []:
            if not 0 <= child < len(gltf.nodes) or parents[child] >= 0 or child == index:
                raise CharacterError(
                    f"node {child} is not a tree node (two parents, a cycle or no such node)"
                )
            parents[child] = index
    return parents


def world_matrices(gltf: pygltflib.GLTF2, parents: NDArray[np.int64]) -> NDArray[np.float64]:
    """``[N, 4, 4]`` every node's rest transform in the world."""
    count = len(gltf.nodes)
    world = np.zeros((count, 4, 4))
    done = np.zeros(count, dtype=bool)
    for index in range(count):
        chain = []
        node = index
        while node >= 0 and not done[node]:
            chain.append(node)
            node = int(parents[node])
            if len(chain) > count:
                raise CharacterError("the node hierarchy has a cycle")
        for joint in reversed(chain):  # from the highest not yet placed down to `index`
            parent = int(parents[joint])
            local = node_local(gltf.nodes[joint])
            world[joint] = local if parent < 0 else world[parent] @ local
            done[joint] = True
    return world
