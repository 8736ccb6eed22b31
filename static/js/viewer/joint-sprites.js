// @ts-check
// Joints drawn as shaded spheres in screen space (impostors): one point per joint whose
// fragment shader paints a lit disc of the joint's radius. One vertex per joint instead
// of a tessellated sphere: on a CPU rasteriser (SwiftShader, headless Chromium) 141
// meshed spheres cost a 60 fps frame, these cost nothing measurable. Sizes follow
// the perspective camera (world radius in metres); colours go through three.js' output
// colour space like any material.

import * as THREE from "three";

const VERTEX = /* glsl */ `
attribute float radius;
uniform float pixelsPerUnit;
void main() {
  vec4 eye = modelViewMatrix * vec4(position, 1.0);
  // a joint of radius 0 is not drawn (a carrier root: skeleton-view.js)
  gl_PointSize = radius > 0.0 ? max(2.0, 2.0 * radius * pixelsPerUnit / max(-eye.z, 1e-3)) : 0.0;
  gl_Position = projectionMatrix * eye;
}`;

const FRAGMENT = /* glsl */ `
uniform vec3 color;
uniform float opacity;
void main() {
  vec2 p = gl_PointCoord * 2.0 - 1.0;
  float d = dot(p, p);
  if (d > 1.0) discard;
  vec3 normal = vec3(p.x, -p.y, sqrt(1.0 - d));
  float light = 0.55 + 0.45 * max(dot(normal, normalize(vec3(0.35, 0.6, 0.7))), 0.0);
  gl_FragColor = vec4(color * light, opacity);
  #include <colorspace_fragment>
}`;

export class JointSprites {
  /**
   * @param {Float32Array} radii sphere radius per joint, metres
   * @param {{color: number, opacity: number}} style
   */
  constructor(radii, { color, opacity }) {
    this.buffer = new Float32Array(radii.length * 3);
    this.geometry = new THREE.BufferGeometry();
    this.geometry.setAttribute("position", new THREE.BufferAttribute(this.buffer, 3));
    this.geometry.setAttribute("radius", new THREE.BufferAttribute(Float32Array.from(radii), 1));
    this.material = new THREE.ShaderMaterial({
      uniforms: {
        color: { value: new THREE.Color(color) },
        opacity: { value: opacity },
        pixelsPerUnit: { value: 1 },
      },
      vertexShader: VERTEX,
      fragmentShader: FRAGMENT,
      transparent: opacity < 1,
    });
    this.object = new THREE.Points(this.geometry, this.material);
    this.object.frustumCulled = false;
    const size = new THREE.Vector2();
    // Pixels per metre at 1 m from a perspective camera, for the canvas being drawn.
    this.object.onBeforeRender = (renderer, scene, camera) => {
      renderer.getDrawingBufferSize(size);
      const fov = camera instanceof THREE.PerspectiveCamera ? camera.fov : 50;
      const halfFov = THREE.MathUtils.degToRad(fov) / 2;
      this.material.uniforms.pixelsPerUnit.value = size.y / (2 * Math.tan(halfFov));
    };
  }

  /**
   * Put the joints at `positions[base … base + 3 × joints)` (metres).
   * @param {Float32Array} positions
   * @param {number} base
   */
  setPositions(positions, base) {
    this.buffer.set(positions.subarray(base, base + this.buffer.length));
    this.geometry.attributes.position.needsUpdate = true;
  }

  dispose() {
    this.geometry.dispose();
    this.material.dispose();
  }
}
