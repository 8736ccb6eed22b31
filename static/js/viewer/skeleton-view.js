// @ts-check
// A skeleton drawn from the server's ready-to-play arrays (motioncore.export.viewer_arrays):
// its body, the mannequin made from its own bones (mannequin.js: fetched once, skinned
// to the joints' positions each frame, with a soft contact shadow), and the bones
// overlay: joints as lit sphere impostors (joint-sprites.js) and bones as one
// line-segment geometry. The overlay is drawn when asked for (showBones) and whenever
// there is no body to see (hidden, still loading, or a skeleton the server could make
// none of: then capsules along the bones, capsule-body.js, stand in). Bones that are
// translations (a carrier root's on the floor: bone-frames.js) are drawn by neither,
// nor is the carrier. Buffers are allocated once and updated in place each frame; the
// browser does no kinematics.
//
// Arrays (metres, Y up): `positions` flat [frames × joints × 3] world positions,
// `parents` [joints] (-1 for roots), `end_site` [joints] booleans, and for the
// mannequin `names` and `offsets` (flat [joints × 3] rest offsets).

import * as THREE from "three";
import { translatedBones } from "./bone-frames.js";
import { CapsuleBody } from "./capsule-body.js";
import { ContactShadow } from "./contact-shadow.js";
import { JointSprites } from "./joint-sprites.js";
import { fetchBody, fetchMannequin, MannequinBody, skinnedMeshOf } from "./mannequin.js";

const JOINT_RADIUS_M = 0.025;
const END_SITE_RADIUS_M = 0.012;
const MIN_JOINT_RADIUS_M = 0.005;
/** How much white the body's colour is mixed with: a lighter shade of the overlay's
 * colour, so that a page's colours still say which motion is which (blue the clip, a
 * ghost grey, a transition's sides blue and orange). */
const BODY_LIGHTEN = 0.1;

/**
 * A body drawn along the skeleton (the mannequin, or the capsules standing in).
 * @typedef {{object: THREE.Object3D, setPositions: (p: Float32Array, base: number) => void,
 *   dispose: () => void}} Body
 */

export class SkeletonView {
  /**
   * @param {import("./arrays.js").ViewerArrays} arrays
   * @param {{color?: number, opacity?: number}} [style] the overlay's colour and
   *   opacity; the body is a lighter shade of the colour (BODY_LIGHTEN)
   * @param {{bodyUrl?: string}} [options] `bodyUrl`: a character's body (a GLB skinned to
   *   these joints at rest) instead of the mannequin made from the skeleton
   */
  constructor(arrays, style = {}, options = {}) {
    this.arrays = arrays;
    this.bodyUrl = options.bodyUrl ?? "";
    this.frames = arrays.frames;
    this.joints = arrays.joints;
    this.positions = Float32Array.from(arrays.positions);
    if (this.positions.length !== this.frames * this.joints * 3) {
      throw new Error(`positions hold ${this.positions.length} values, expected frames × joints × 3`);
    }
    this.parents = Int32Array.from(arrays.parents);
    this.endSite = arrays.end_site ?? new Array(this.joints).fill(false);
    /** Joints whose bone from their parent is a translation: not drawn. */
    this.hidden = translatedBones(arrays);
    this.bones = Int32Array.from(
      [...this.parents.keys()].filter((j) => this.parents[j] >= 0 && !this.hidden.has(j)),
    );
    /** Roots with no bone left to draw (a carrier): not drawn either. */
    this.carriers = new Set([...this.parents.keys()].filter((j) => (
      this.parents[j] < 0 && this.hidden.size > 0 && !this.bones.some((b) => this.parents[b] === j)
    )));
    this.boneLengths = this.measureBonesOf(this.bones);
    /** The figure's height on the first frame, metres (its joints' extent up). */
    this.height = this.heightAt(0);
    this.group = new THREE.Group();
    this.group.name = "skeleton";
    this.style = { color: style.color ?? 0x2f6fde, opacity: style.opacity ?? 1 };
    this.bodyColor = new THREE.Color(this.style.color).lerp(new THREE.Color(0xffffff), BODY_LIGHTEN);
    const transparent = this.style.opacity < 1;
    this.lineMaterial = new THREE.LineBasicMaterial({ ...this.style, transparent });
    this.lineBuffer = new Float32Array(this.bones.length * 6);
    this.lineGeometry = new THREE.BufferGeometry();
    this.lineGeometry.setAttribute("position", new THREE.BufferAttribute(this.lineBuffer, 3));
    this.lines = new THREE.LineSegments(this.lineGeometry, this.lineMaterial);
    this.lines.frustumCulled = false;
    this.sprites = new JointSprites(this.jointRadii(), this.style);
    this.group.add(this.sprites.object, this.lines);
    /** @type {Body | null} the mannequin (or the capsules standing in), once it is built */
    this.body = null;
    /** @type {THREE.Material | null} the body's material */
    this.bodyMaterial = null;
    /** @type {Promise<void> | null} the mannequin being fetched */
    this.loading = null;
    this.bodyWanted = false;
    this.bonesWanted = false;
    this.shadow = new ContactShadow([...this.parents.keys()].filter((j) => !this.carriers.has(j)), 0.32 * this.style.opacity);
    this.shadow.object.visible = false;
    this.group.add(this.shadow.object);
    this.disposed = false;
    /** The preview frame shown; -1 when the pose came from elsewhere (draw). */
    this.frame = -1;
    /**
     * The buffer and offset the pose shown came from (redrawn when the body is shown).
     * @type {{positions: Float32Array, base: number}}
     */
    this.shown = { positions: this.positions, base: 0 };
    this.update(0);
  }

  /**
   * The joints' extent along Y at `frame` (a carrier on the floor left out), metres.
   * @param {number} frame
   */
  heightAt(frame) {
    let low = Infinity, high = -Infinity;
    for (let j = 0; j < this.joints; j += 1) {
      if (this.carriers.has(j)) continue;
      const y = this.positions[(frame * this.joints + j) * 3 + 1];
      low = Math.min(low, y), high = Math.max(high, y);
    }
    return high > low ? high - low : 0;
  }

  /**
   * Sphere radius per joint, metres: JOINT_RADIUS_M (END_SITE_RADIUS_M at end sites),
   * but no more than 0.4 × the joint's shortest bone so that fingers and twist joints
   * stay apart (a joint on top of its parent does not count).
   */
  jointRadii() {
    const shortest = new Float32Array(this.joints).fill(Infinity);
    this.bones.forEach((child, i) => {
      const length = this.boneLengths[i];
      if (length < 1e-6) return;
      const parent = this.parents[child];
      shortest[child] = Math.min(shortest[child], length);
      shortest[parent] = Math.min(shortest[parent], length);
    });
    return Float32Array.from(shortest, (bone, j) => {
      if (this.carriers.has(j)) return 0;
      const r = this.endSite[j] ? END_SITE_RADIUS_M : JOINT_RADIUS_M;
      return Math.max(MIN_JOINT_RADIUS_M, Math.min(r, 0.4 * bone));
    });
  }

  /**
   * Show or hide the body: the mannequin, fetched on first use (the overlay stands in
   * while it loads). The body of a skeleton drawn whole is opaque and Lambert-shaded:
   * software WebGL (a machine without a GPU) drew a translucent, physically shaded one
   * at 30 fps, not 60; a ghost's is translucent.
   * @param {boolean} visible
   * @returns {Promise<void>} settled once the body is drawn (or could not be made)
   */
  showBody(visible) {
    this.bodyWanted = visible;
    if (visible && !this.body && !this.loading) this.loading = this.loadBody();
    this.refresh();
    return this.loading ?? Promise.resolve();
  }

  /**
   * Show or hide the bones overlay (joints and bones; always drawn without a body).
   * @param {boolean} visible
   */
  showBones(visible) {
    this.bonesWanted = visible;
    this.refresh();
  }

  /** Whether the body is drawn now (wanted and built). */
  get bodyDrawn() {
    return Boolean(this.bodyWanted && this.body);
  }

  /** The mannequin, or capsules when the server could make none. */
  async loadBody() {
    const ghost = this.style.opacity < 1;
    const material = new THREE.MeshLambertMaterial({
      color: this.bodyColor, transparent: ghost, opacity: ghost ? 0.85 * this.style.opacity : 1,
    });
    /** @type {Body} */
    let body;
    try {
      const glb = this.bodyUrl ? await fetchBody(this.bodyUrl) : await this.fetchMannequin();
      body = new MannequinBody(await skinnedMeshOf(glb), this.parents, this.hidden, material);
      this.group.userData.body = this.bodyUrl ? "character" : "mannequin";
    } catch (error) {
      console.warn(`no mannequin, capsules instead: ${error instanceof Error ? error.message : error}`);
      body = new CapsuleBody(this.bones, this.parents, this.measureBonesOf(this.bones), material);
      this.group.userData.body = "capsules";
    }
    if (this.disposed) {
      body.dispose();
      material.dispose();
      return;
    }
    this.body = body;
    this.bodyMaterial = material;
    this.group.add(body.object);
    this.refresh();
  }

  /** The mannequin of this skeleton (made by the server). */
  fetchMannequin() {
    const { names, offsets } = this.arrays;
    if (!names || !offsets) throw new Error("the arrays do not describe the skeleton's rest pose");
    return fetchMannequin({ names, parents: this.parents, offsets, end_site: this.endSite }, this.hidden);
  }

  /** Visibility of body, shadow and overlay; the pose shown drawn again. */
  refresh() {
    const drawn = this.bodyDrawn;
    if (this.body) this.body.object.visible = drawn;
    this.shadow.object.visible = drawn;
    const overlay = this.bonesWanted || !drawn;
    this.sprites.object.visible = overlay;
    this.lines.visible = overlay;
    // Over a body the overlay is drawn through it (x-ray), else it would be inside it.
    for (const material of [this.lineMaterial, this.sprites.material]) material.depthTest = !drawn;
    this.lines.renderOrder = this.sprites.object.renderOrder = drawn ? 2 : 0;
    this.pose(this.shown.positions, this.shown.base);
  }

  /**
   * Each of `bones`' length on the first frame, metres (bones are rigid).
   * @param {Int32Array} bones child joint of each bone
   */
  measureBonesOf(bones) {
    const a = new THREE.Vector3();
    const b = new THREE.Vector3();
    return Float32Array.from(bones, (child) =>
      this.jointPosition(0, this.parents[child], a).distanceTo(this.jointPosition(0, child, b)));
  }

  /**
   * World position [x, y, z] of `joint` at `frame`, metres, into `out`.
   * @param {number} frame
   * @param {number} joint
   * @param {THREE.Vector3} out
   * @returns {THREE.Vector3} out
   */
  jointPosition(frame, joint, out) {
    const i = (frame * this.joints + joint) * 3;
    return out.set(this.positions[i], this.positions[i + 1], this.positions[i + 2]);
  }

  /**
   * Pose the skeleton at `frame` (clamped to the clip).
   * @param {number} frame
   */
  update(frame) {
    const f = Math.min(this.frames - 1, Math.max(0, frame | 0));
    if (f === this.frame) return;
    this.frame = f;
    this.pose(this.positions, f * this.joints * 3);
  }

  /**
   * Pose the skeleton from another buffer of the same joints (a full-rate window of the
   * clip, full-rate.js): the frame whose positions start at `positions[base]`.
   * @param {Float32Array} positions flat [frames × joints × 3], metres
   * @param {number} base
   */
  draw(positions, base) {
    this.frame = -1;
    this.pose(positions, base);
  }

  /**
   * Put joints, bones and body at the frame starting at `p[base]`.
   * @param {Float32Array} p flat [frames × joints × 3], metres
   * @param {number} base
   */
  pose(p, base) {
    this.shown = { positions: p, base };
    this.sprites.setPositions(p, base);
    for (let b = 0; b < this.bones.length; b += 1) {
      const child = base + this.bones[b] * 3;
      const parent = base + this.parents[this.bones[b]] * 3;
      this.lineBuffer.set(p.subarray(parent, parent + 3), b * 6);
      this.lineBuffer.set(p.subarray(child, child + 3), b * 6 + 3);
    }
    this.lineGeometry.attributes.position.needsUpdate = true;
    if (this.body?.object.visible) {
      this.body.setPositions(p, base);
      this.shadow.setPositions(p, base);
    }
  }

  dispose() {
    this.disposed = true;
    this.body?.dispose();
    this.bodyMaterial?.dispose();
    this.shadow.dispose();
    this.sprites.dispose();
    this.lineGeometry.dispose();
    this.lineMaterial.dispose();
  }
}
