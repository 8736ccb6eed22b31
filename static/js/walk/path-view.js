// @ts-check
// The requested path on the 3-D stage's ground: a flat orange ribbon along it (WebGL
// lines are one pixel wide) and a disc at each point, the start in green. Geometry is
// rebuilt only when the path changes.

import * as THREE from "three";
import { ribbon } from "./path.js";

const HALF_WIDTH_M = 0.04;
const DISC_RADIUS_M = 0.12;
const LIFT_M = 0.006; // above the grid lines, below the grid's labels
const PATH_COLOR = 0xe0861a;
const START_COLOR = 0x1f9d74;

export class PathView {
  constructor() {
    this.group = new THREE.Group();
    this.group.name = "path";
    this.material = new THREE.MeshBasicMaterial({ color: PATH_COLOR, side: THREE.DoubleSide });
    this.startMaterial = new THREE.MeshBasicMaterial({ color: START_COLOR, side: THREE.DoubleSide });
    this.ribbonGeometry = new THREE.BufferGeometry();
    this.ribbon = new THREE.Mesh(this.ribbonGeometry, this.material);
    this.disc = new THREE.CircleGeometry(DISC_RADIUS_M, 24).rotateX(-Math.PI / 2);
    this.start = new THREE.Mesh(this.disc, this.startMaterial);
    /** @type {THREE.InstancedMesh | null} a disc at every point but the first */
    this.discs = null;
    /** @type {ReadonlyArray<import("./path.js").PointLike>} */
    this.points = [];
    this.group.add(this.ribbon, this.start);
    this.setPoints([]);
  }

  /**
   * Show the path through ground points [x, z] (metres).
   * @param {ReadonlyArray<import("./path.js").PointLike>} points
   */
  setPoints(points) {
    this.ribbonGeometry.setAttribute(
      "position", new THREE.BufferAttribute(ribbon(points, HALF_WIDTH_M, LIFT_M), 3),
    );
    this.ribbonGeometry.computeBoundingSphere();
    if (this.discs) {
      this.discs.removeFromParent();
      this.discs.dispose();
    }
    const rest = points.slice(1);
    const discs = new THREE.InstancedMesh(this.disc, this.material, Math.max(1, rest.length));
    this.discs = discs;
    discs.count = rest.length;
    const matrix = new THREE.Matrix4();
    rest.forEach(([x, z], i) => discs.setMatrixAt(i, matrix.makeTranslation(x, LIFT_M * 1.5, z)));
    discs.frustumCulled = false;
    this.group.add(discs);
    this.start.visible = points.length > 0;
    if (points.length > 0) this.start.position.set(points[0][0], LIFT_M * 2, points[0][1]);
    this.points = points;
  }

  dispose() {
    this.discs?.dispose();
    this.ribbonGeometry.dispose();
    this.disc.dispose();
    this.material.dispose();
    this.startMaterial.dispose();
  }
}
