// @ts-check
// The mannequin a skeleton is drawn with: a skinned mesh made by the server from the
// skeleton's own bones (POST /api/v1/mannequins/, motioncore.character.mannequin; a GLB
// in the rest pose, without animation), posed here from the joints' world positions
// the player already has (bone-frames.js gives each joint's rotation, and the
// skeleton's size against its rest pose), so that it follows the very points the bones
// overlay draws: the preview, a full-rate window or the Drive page's foot-locked pose
// (the canonical character sized to a rig) alike.
//
// Its bones are not in the scene graph: each frame writes every bone's world matrix
// (the joint's position and rotation) and three.js skins with those and the GLB's
// inverse bind matrices. Nothing is allocated per frame.

import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import { csrfToken, errorMessage, parseJson } from "../api.js";
import { BoneFrames } from "./bone-frames.js";

export const MANNEQUIN_URL = "/api/v1/mannequins/";

/**
 * A skeleton as the server's viewer arrays describe it.
 * @typedef {object} MannequinSkeleton
 * @property {string[]} names
 * @property {ArrayLike<number>} parents
 * @property {ArrayLike<number>} offsets flat [joints × 3] rest offsets, metres
 * @property {boolean[]} end_site
 */

/**
 * The GLB of `skeleton`'s mannequin, without the bones in `hidden`.
 * @param {MannequinSkeleton} skeleton
 * @param {ReadonlySet<number>} hidden
 * @param {AbortSignal} [signal]
 * @returns {Promise<ArrayBuffer>}
 */
export async function fetchMannequin(skeleton, hidden, signal) {
  const body = {
    names: skeleton.names,
    parents: Array.from(skeleton.parents),
    offsets: Array.from(skeleton.offsets),
    end_site: skeleton.end_site,
    hidden: [...hidden],
  };
  const response = await fetch(MANNEQUIN_URL, {
    method: "POST",
    signal,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "model/gltf-binary, application/json;q=0.9", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(errorMessage(parseJson(await response.text()), response.status));
  return response.arrayBuffer();
}

/**
 * A character's body (a GLB download: the character at rest, skinned to its joints).
 * @param {string} url
 * @returns {Promise<ArrayBuffer>}
 */
export async function fetchBody(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(errorMessage(parseJson(await response.text()), response.status));
  return response.arrayBuffer();
}

/**
 * The skinned mesh of a GLB that holds one (the server's mannequin).
 * @param {ArrayBuffer} glb
 * @returns {Promise<THREE.SkinnedMesh>}
 */
export async function skinnedMeshOf(glb) {
  const gltf = await new GLTFLoader().parseAsync(glb, "");
  /** @type {THREE.SkinnedMesh | null} */
  let found = null;
  gltf.scene.traverse((object) => {
    if (!found && /** @type {THREE.SkinnedMesh} */ (object).isSkinnedMesh) found = /** @type {THREE.SkinnedMesh} */ (object);
  });
  if (!found) throw new Error("the mannequin holds no skinned mesh");
  return found;
}

export class MannequinBody {
  /**
   * @param {THREE.SkinnedMesh} loaded the GLB's mesh (its geometry and inverse binds are used)
   * @param {ArrayLike<number>} parents [joints]
   * @param {ReadonlySet<number>} hidden joints whose bone from their parent is a translation
   * @param {THREE.Material} material
   */
  constructor(loaded, parents, hidden, material) {
    const inverses = loaded.skeleton.boneInverses;
    if (inverses.length !== parents.length) {
      throw new Error(`the mannequin has ${inverses.length} joints, the skeleton ${parents.length}`);
    }
    // The bind pose is the rest pose: each inverse bind matrix undoes a joint's rest position.
    const rest = new Float32Array(3 * inverses.length);
    const point = new THREE.Vector3();
    inverses.forEach((inverse, j) => {
      point.setFromMatrixPosition(new THREE.Matrix4().copy(inverse).invert()).toArray(rest, 3 * j);
    });
    this.frames = new BoneFrames(parents, rest, hidden);
    this.rotations = new Float32Array(4 * inverses.length);
    this.bones = inverses.map(() => new THREE.Bone());
    for (const bone of this.bones) bone.matrixAutoUpdate = false;
    this.material = material;
    this.mesh = new THREE.SkinnedMesh(loaded.geometry, material);
    this.mesh.name = "mannequin";
    this.mesh.frustumCulled = false; // it walks far from its bind pose
    this.mesh.bind(new THREE.Skeleton(this.bones, inverses.map((m) => m.clone())), new THREE.Matrix4());
    this.object = this.mesh;
    this.position = new THREE.Vector3();
    this.rotation = new THREE.Quaternion();
    this.size = new THREE.Vector3(1, 1, 1);
  }

  /**
   * Pose the body at the frame whose positions start at `positions[base]`.
   * @param {Float32Array} positions flat [frames × joints × 3], metres
   * @param {number} base
   */
  setPositions(positions, base) {
    const { rotations, position, rotation, size } = this;
    this.frames.solve(positions, base, rotations);
    const scale = this.frames.scaleOf(positions, base);
    size.set(scale, scale, scale);
    this.bones.forEach((bone, j) => {
      position.fromArray(positions, base + 3 * j);
      rotation.fromArray(rotations, 4 * j);
      bone.matrixWorld.compose(position, rotation, size);
    });
  }

  dispose() {
    this.mesh.geometry.dispose();
    this.mesh.skeleton.dispose();
  }
}
