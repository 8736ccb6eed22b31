"""The mannequin (motioncore.character.mannequin) and the GLB of a clip on it
(motioncore.character.glb): the Khronos validator finds no error or warning, and three.js'
GLTFLoader (the vendored one, in node) reads back joints whose world positions, played
by its AnimationMixer, are motioncore's forward kinematics of the same frames within
1 mm."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, fk
from motioncore.character.glb import glb_bytes
from motioncore.character.mannequin import mannequin
from motioncore.clip import Clip
from motioncore.skeleton import canonical
from support.three_node import NODE, ROOT, gltf_issues, issue_lines, node_with_import_map

SAMPLES = ROOT / "tests" / "data"
CLIPS = {
    "walk60 (games105)": SAMPLES / "games105" / "walk60.bvh",
    "run_forward (games105)": SAMPLES / "games105" / "run_forward.bvh",
}
MM = 0.001


def _clip(name: str) -> Clip:
    path = CLIPS[name]
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout")
    return bvh.load(path)


@pytest.mark.parametrize("name", sorted(CLIPS))
def test_the_mannequin_is_skinned_to_its_skeleton(name: str) -> None:
    clip = _clip(name)
    mesh = mannequin(clip.skeleton)
    joints = clip.skeleton.num_joints
    assert mesh.positions.shape == mesh.normals.shape and mesh.positions.shape[1] == 3
    assert mesh.triangles.min() >= 0 and mesh.triangles.max() < len(mesh.positions)
    assert np.allclose(mesh.weights.sum(axis=1), 1.0)
    assert mesh.joints.min() >= 0 and mesh.joints.max() < joints
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0)
    rest = fk.rest_positions(clip.skeleton.offsets, clip.skeleton.parents)
    low, high = mesh.positions.min(axis=0), mesh.positions.max(axis=0)
    assert np.all(rest >= low - 0.1) and np.all(rest <= high + 0.1)  # the body round its bones
    # every triangle faces outwards of its part: its normal agrees with its vertices'
    a, b, c = (mesh.positions[mesh.triangles[:, i]] for i in range(3))
    face = np.cross(b - a, c - a)
    vertex = mesh.normals[mesh.triangles].sum(axis=1)
    assert np.mean(np.sum(face * vertex, axis=1) > 0) > 0.99


def test_a_skeleton_without_bones_has_no_mannequin() -> None:
    skeleton = canonical.skeleton()
    flat = type(skeleton)(
        names=skeleton.names[:1],
        parents=skeleton.parents[:1],
        offsets=skeleton.offsets[:1],
        channels=skeleton.channels[:1],
        kinds=skeleton.kinds[:1],
    )
    with pytest.raises(ValueError, match="no bone"):
        mannequin(flat)


@pytest.mark.parametrize("name", sorted(CLIPS))
def test_the_glb_passes_the_khronos_validator(name: str, tmp_path: Path) -> None:
    clip = _clip(name)
    path = tmp_path / "clip.glb"
    path.write_bytes(glb_bytes(clip, mannequin(clip.skeleton)))
    issues = gltf_issues(path)
    assert (issues["numErrors"], issues["numWarnings"]) == (0, 0), issue_lines(issues)


@pytest.mark.skipif(NODE is None, reason="node is not installed: three.js cannot read the GLB")
@pytest.mark.parametrize("name", sorted(CLIPS))
def test_three_js_plays_the_glb_where_motioncore_puts_the_joints(name: str, tmp_path: Path) -> None:
    clip = _clip(name)
    frames = sorted({0, clip.num_frames // 3, (2 * clip.num_frames) // 3, clip.num_frames - 1})
    path = tmp_path / "clip.glb"
    path.write_bytes(glb_bytes(clip, mannequin(clip.skeleton)))
    output = node_with_import_map(
        f"""
        const {{ AnimationMixer, LoopOnce, Vector3 }} = await import('three');
        const {{ GLTFLoader }} = await import('three/addons/loaders/GLTFLoader.js');
        const {{ readFileSync }} = await import('node:fs');
        const bytes = readFileSync({json.dumps(str(path))});
        const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
        const gltf = await new GLTFLoader().parseAsync(buffer, '');
        let skinned = null;
        gltf.scene.traverse((o) => {{ if (o.isSkinnedMesh) skinned = o; }});
        const bones = skinned.skeleton.bones;
        const mixer = new AnimationMixer(gltf.scene);
        const action = mixer.clipAction(gltf.animations[0]);
        action.setLoop(LoopOnce, 1);
        action.clampWhenFinished = true;  // the last frame stays, not frame 0
        action.play();
        const out = {{ names: bones.map((b) => b.name), frames: [] }};
        for (const frame of {json.dumps(frames)}) {{
            mixer.setTime(frame / {clip.fps});
            gltf.scene.updateMatrixWorld(true);
            out.frames.push(bones.map((b) => b.getWorldPosition(new Vector3()).toArray()));
        }}
        console.log(JSON.stringify(out));""",
        timeout_s=120,
    )
    read = json.loads(output)
    # GLTFLoader makes node names unique and safe for its property bindings
    assert len(read["names"]) == clip.skeleton.num_joints
    played = np.asarray(read["frames"])
    expected = fk.positions(clip)[frames]
    error = np.linalg.norm(played - expected, axis=-1)
    assert error.max() < MM, (float(error.max()), np.unravel_index(error.argmax(), error.shape))
