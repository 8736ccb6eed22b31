"""A user's character from a glTF 2.0 file: its skeleton, its body at rest and a report,
and any clip retargeted onto it.

:func:`read_rig` takes the file's first skin (the one most meshes use) and makes, in one
reference pose, the character's "rest":

* the **reference pose**: the skin's **bind pose** (each joint at the inverse of its
  inverse bind matrix, placed by the nodes above the skeleton's root: a Z-up file's turn
  to Y up, a unit's scale), where the body is as modelled (a file whose nodes rest in an
  animation's first pose still gives its T-pose); but the nodes' own rest pose when
  rigid meshes hang on the bones (a robot's plates: that is the one pose they have).
  The whole is moved onto the floor (its lowest point at y = 0).
* the **skeleton** of the skin's joints in that pose, as a BVH skeleton has it: every
  local rotation the identity there, each offset the joint's position less its
  parent's (metres, Y up); a joint's parent is its nearest ancestor among the joints,
  except a foot that hangs from elsewhere than its leg (an inverse-kinematics target),
  which goes under its side's lower leg. Roles are inferred as for a BVH
  (:func:`motioncore.skeleton.infer`: names, then topology; overrides first; a forearm
  with a palm bone per finger and no hand gets its middle branch as the hand), and
  retargeting needs a humanoid (:class:`motioncore.skeleton.landmarks.Rig`): a file
  without one is refused, naming the roles missing.
* the **body**: every mesh skinned to that skin (and to any other skin over the same
  joints), put in the reference pose by the file's own skinning (``Σ w · joint · inverse
  bind``), plus every rigid mesh under a joint, bound whole to that joint; skinned again
  to the skeleton with inverse binds that undo each joint's position, as
  :mod:`motioncore.character.mannequin`'s are. It plays in the players exactly as the
  mannequin does (``static/js/viewer/mannequin.js``) and goes into GLB downloads
  (:mod:`motioncore.character.glb`). Materials and textures are not kept: the body is
  drawn in the mannequin's material.
* the **report** (:mod:`motioncore.character.rig_report`): joints, roles found and
  missing (and how each was found), height, up axis, rest pose (T-pose, A-pose), vertices
  and triangles, and warnings (every repair above is one).

:func:`clip_on_rig` retargets a clip onto the character with
:func:`motioncore.skeleton.retarget.to_canonical` then
:func:`~motioncore.skeleton.retarget.to_rig`, the reference pose as the rig's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from motioncore import quat
from motioncore.character.gltf_read import Document, node_parents, read_document, world_matrices
from motioncore.character.mannequin import Part, SkinnedMesh, joined
from motioncore.character.rig_mesh import rigid_part, skinned_part
from motioncore.character.rig_repairs import feet_on_legs, stand_in_hands
from motioncore.character.rig_report import rig_report
from motioncore.clip import Clip, Skeleton
from motioncore.errors import CharacterError, MotionCoreError
from motioncore.skeleton import infer
from motioncore.skeleton.landmarks import Rig
from motioncore.skeleton.retarget import to_canonical, to_rig
from motioncore.skeleton.roles import JointRoles

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

TRIANGLES = 4
"""glTF's primitive mode for triangle lists (the default)."""
FLOOR_TOLERANCE_M = 0.01
"""A body whose lowest point at rest is further than this from y = 0 is moved onto it
(and the report says so)."""


@dataclass(frozen=True)
class RigLimits:
    """What a character file may hold."""

    max_joints: int = 256
    max_vertices: int = 300_000


@dataclass(frozen=True)
class CharacterRig:
    """A character read from glTF (see the module docstring).

    Attributes:
        skeleton: the skin's joints, rest pose = identity rotations.
        mesh: the body at rest, skinned to ``skeleton``.
        roles: the joints' roles (humanoid).
        report: JSON-able validation report.
    """

    skeleton: Skeleton
    mesh: SkinnedMesh
    roles: JointRoles
    report: dict[str, Any] = field(default_factory=dict)

    @property
    def rest(self) -> FloatArray:
        """``[J, 3]`` the joints' rest positions, metres."""
        return -self.mesh.inverse_bind[:, :3, 3]


def read_rig(
    data: bytes, *, overrides: Mapping[str, str] | None = None, limits: RigLimits = RigLimits()
) -> CharacterRig:
    """The character in ``data`` (see the module docstring).

    Raises:
        CharacterError: naming the problem (not glTF, no skin, not a humanoid, a limit).
    """
    document = read_document(data)
    gltf = document.gltf
    if not gltf.skins:
        raise CharacterError(
            "the file has no skin: a character needs a skeleton its mesh is skinned to"
        )
    skin_index = _main_skin(document)
    skin = gltf.skins[skin_index]
    if not 0 < len(skin.joints) <= limits.max_joints:
        raise CharacterError(
            f"the skin has {len(skin.joints)} joints; a character has 1 to {limits.max_joints}"
        )
    parents_of_node = node_parents(gltf)
    world = world_matrices(gltf, parents_of_node)
    node_parent = feet_on_legs(gltf, list(skin.joints), parents_of_node)
    order, parents = _joint_tree(list(skin.joints), node_parent)
    nodes = [skin.joints[i] for i in order]  # joint j of the skeleton is node nodes[j]
    rigid = _rigid_meshes(gltf, set(skin.joints), parents_of_node)
    if rigid:  # the nodes' rest pose is the one pose the rigid meshes have
        bind = world[nodes]
    else:  # [J, 4, 4] each joint in the bind pose
        bind = _bind_pose(document, skin_index, world, parents_of_node)[order]
    rest = bind[:, :3, 3]
    mesh, warnings = _body(
        document, skin_index, nodes, bind, world, parents_of_node, limits, at_rest=rigid
    )
    mesh, lift = _on_the_floor(mesh)
    rest = rest + np.array([0.0, lift, 0.0])
    if abs(lift) > FLOOR_TOLERANCE_M:
        warnings.append(f"the body was moved {lift:+.3f} m up to stand on the floor (y = 0)")
    skeleton = _skeleton(gltf, nodes, parents, rest)
    try:
        roles = infer(skeleton, overrides)
        hands = stand_in_hands(skeleton, rest, roles, warnings)
        if hands:
            roles = infer(skeleton, {**hands, **(overrides or {})})
        Rig.of(skeleton, rest, roles)
    except MotionCoreError as error:
        raise CharacterError(f"not a humanoid character: {error}") from error
    report = rig_report(skeleton, rest, mesh, roles, warnings, animations=len(gltf.animations))
    return CharacterRig(skeleton, mesh, roles, report)


def clip_on_rig(clip: Clip, rig: CharacterRig) -> Clip:
    """``clip`` retargeted onto ``rig``'s skeleton (same frames and rate)."""
    sk = rig.skeleton
    reference = Clip(sk, quat.identity((1, sk.num_joints)), sk.offsets[None].copy(), clip.fps)
    return to_rig(to_canonical(clip), reference, rig.roles)


def _on_the_floor(mesh: SkinnedMesh) -> tuple[SkinnedMesh, float]:
    """``mesh`` moved up or down so that its lowest vertex is at y = 0; how far (m)."""
    lift = -float(mesh.positions[:, 1].min())
    positions = mesh.positions + np.array([0.0, lift, 0.0])
    inverse_bind = mesh.inverse_bind.copy()
    inverse_bind[:, 1, 3] -= lift
    return replace(mesh, positions=positions, inverse_bind=inverse_bind), lift


def _rigid_meshes(gltf: Any, joints: set[int], node_parent: IntArray) -> bool:
    """Whether a mesh without a skin hangs under a joint (a robot's plates)."""
    for index, node in enumerate(gltf.nodes):
        if node.mesh is None or node.skin is not None:
            continue
        up = index
        while up >= 0:
            if up in joints:
                return True
            up = int(node_parent[up])
    return False


def _main_skin(document: Document) -> int:
    """The skin the most mesh nodes use (the first on a tie)."""
    uses = [0] * len(document.gltf.skins)
    for node in document.gltf.nodes:
        if node.skin is not None and node.mesh is not None and 0 <= node.skin < len(uses):
            uses[node.skin] += 1
    if not any(uses):
        raise CharacterError("no mesh is skinned: the file's skin moves nothing")
    return int(np.argmax(uses))


def _joint_tree(joints: list[int], node_parent: IntArray) -> tuple[list[int], IntArray]:
    """The joints ordered parents first (their index in ``joints``: the skin's order
    where it is already so, else by depth), and each one's parent in that order (-1 for
    a joint with no joint above it)."""
    if len(set(joints)) != len(joints):
        raise CharacterError("the skin names a joint twice")
    inside = {node: i for i, node in enumerate(joints)}

    def above(node: int) -> int:
        parent = int(node_parent[node])
        while parent >= 0 and parent not in inside:
            parent = int(node_parent[parent])
        return parent

    depth = {}
    for node in joints:
        d, up = 0, above(node)
        while up >= 0:
            d, up = d + 1, above(up)
        depth[node] = d
    ordered = all(above(node) < 0 or joints.index(above(node)) < i for i, node in enumerate(joints))
    order = (
        list(range(len(joints)))
        if ordered
        else sorted(range(len(joints)), key=lambda i: (depth[joints[i]], i))
    )
    position = {joints[i]: k for k, i in enumerate(order)}
    parents = np.array([position.get(above(joints[i]), -1) for i in order], dtype=np.int64)
    return order, parents


def _bind_pose(
    document: Document, skin_index: int, world: FloatArray, node_parent: IntArray
) -> FloatArray:
    """``[skin joints, 4, 4]`` each joint's world transform in the bind pose: the inverse
    of its inverse bind matrix, placed by the nodes above its skeleton's root (a Z-up
    file's turn to Y up, a unit's scale); the nodes' rest transforms where the skin has
    no inverse bind matrices."""
    skin = document.gltf.skins[skin_index]
    if skin.inverseBindMatrices is None:
        return world[list(skin.joints)]
    try:
        relative = np.linalg.inv(_inverse_binds(document, skin_index))
    except np.linalg.LinAlgError as error:
        raise CharacterError("an inverse bind matrix of the skin cannot be inverted") from error
    joints = set(skin.joints)
    above = np.tile(np.eye(4), (len(skin.joints), 1, 1))
    for slot, node in enumerate(skin.joints):
        while node_parent[node] >= 0 and int(node_parent[node]) in joints:
            node = int(node_parent[node])
        if node_parent[node] >= 0:
            above[slot] = world[int(node_parent[node])]
    placed: FloatArray = above @ relative
    return placed


def _inverse_binds(document: Document, skin_index: int) -> FloatArray:
    skin = document.gltf.skins[skin_index]
    if skin.inverseBindMatrices is None:
        return np.tile(np.eye(4), (len(skin.joints), 1, 1))
    values = document.accessor(skin.inverseBindMatrices)
    if values.shape != (len(skin.joints), 16):
        raise CharacterError("the skin's inverse bind matrices do not match its joints")
    return np.transpose(values.reshape(-1, 4, 4), (0, 2, 1))  # stored column-major


def _skeleton(gltf: Any, nodes: list[int], parents: IntArray, rest: FloatArray) -> Skeleton:
    names: list[str] = []
    for j, node in enumerate(nodes):
        name = (gltf.nodes[node].name or f"joint_{j}").strip() or f"joint_{j}"
        while name in names:
            name = f"{name}_{j}"
        names.append(name)
    offsets = np.where(parents[:, None] >= 0, rest - rest[np.maximum(parents, 0)], rest)
    rotation = ("Zrotation", "Xrotation", "Yrotation")
    return Skeleton(
        names=tuple(names),
        parents=parents,
        offsets=offsets,
        channels=tuple(
            ("Xposition", "Yposition", "Zposition", *rotation) if p < 0 else rotation
            for p in parents
        ),
        kinds=tuple("ROOT" if p < 0 else "JOINT" for p in parents),
    )


def _body(
    document: Document,
    skin_index: int,
    nodes: list[int],
    bind: FloatArray,
    world: FloatArray,
    node_parent: IntArray,
    limits: RigLimits,
    *,
    at_rest: bool,
) -> tuple[SkinnedMesh, list[str]]:
    """Every mesh of the skin, and every rigid mesh under a joint, in the pose ``bind``
    (``[J, 4, 4]``: each skeleton joint's; ``world [N, 4, 4]``: every node's at rest).
    ``at_rest``: that pose is the nodes' rest pose, and skinned meshes are put in it as
    the file's own skinning puts them (``Σ w · joint world · inverse bind``)."""
    gltf = document.gltf
    joint_of_node = {node: j for j, node in enumerate(nodes)}
    parts: list[Part] = []
    warnings: list[str] = []
    skins = {  # the main skin, and any other over the same joints (a hand's of its own)
        index: (bind[slots] @ _inverse_binds(document, index), slots)
        for index, skin in enumerate(gltf.skins)
        if set(skin.joints) <= set(joint_of_node)
        for slots in [_skin_to_skeleton(nodes, skin.joints)]
        if index == skin_index or set(skin.joints) <= set(joint_of_node)
    }
    for index, node in enumerate(gltf.nodes):
        if node.mesh is None:
            continue
        for primitive in gltf.meshes[node.mesh].primitives:
            if (primitive.mode if primitive.mode is not None else TRIANGLES) != TRIANGLES:
                warnings.append(f"mesh {node.mesh}: a primitive that is not triangles was left out")
                continue
            if node.skin in skins:
                skinning, slots = skins[node.skin]  # per slot of that skin
                if at_rest:
                    skinning = world[list(gltf.skins[node.skin].joints)] @ _inverse_binds(
                        document, node.skin
                    )
                parts.append(skinned_part(document, primitive, skinning, slots, warnings))
            elif node.skin is None:
                joint = _joint_above(index, joint_of_node, node_parent)
                if joint >= 0:
                    placed = bind[joint] @ np.linalg.inv(world[nodes[joint]]) @ world[index]
                    parts.append(rigid_part(document, primitive, placed, joint))
        if sum(len(p.positions) for p in parts) > limits.max_vertices:
            raise CharacterError(f"the character has more than {limits.max_vertices:,} vertices")
    if not parts:
        raise CharacterError("no triangle mesh is skinned to the skeleton")
    inverse_bind = np.tile(np.eye(4), (len(nodes), 1, 1))
    inverse_bind[:, :3, 3] = -bind[:, :3, 3]
    return joined(parts, inverse_bind), warnings


def _skin_to_skeleton(nodes: list[int], skin_joints: list[int]) -> IntArray:
    """``[skin joints]`` each skin joint slot's index in the skeleton."""
    where = {node: j for j, node in enumerate(nodes)}
    return np.array([where[node] for node in skin_joints], dtype=np.int64)


def _joint_above(node: int, joint_of_node: Mapping[int, int], node_parent: IntArray) -> int:
    """The skeleton joint ``node`` is or hangs under, -1 for none."""
    while node >= 0:
        if node in joint_of_node:
            return joint_of_node[node]
        node = int(node_parent[node])
    return -1
