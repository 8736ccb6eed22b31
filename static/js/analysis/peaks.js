// @ts-check
// scipy.signal.find_peaks' local maxima and prominences, and motioncore.analysis.mtp.peaks (the
// motion units' peaks), ported for the browser. Same comparisons and results as scipy;
// the prominence bases come from a linear-time stack pass instead of scipy's scan per
// peak. Plain ES module, no dependencies; arrays are Float64Array / Int32Array.

/**
 * scipy.signal._peak_finding_utils._local_maxima_1d: one or more equal samples with a
 * smaller sample on both sides; a plateau's peak is its middle, rounded down.
 * The first and last samples are never maxima.
 * @param {Float64Array} x [N]
 * @returns {Int32Array} [K] midpoints, ascending
 */
export function localMaxima(x) {
  const out = new Int32Array(x.length >> 1);
  let m = 0;
  const iMax = x.length - 1;
  let i = 1;
  while (i < iMax) {
    if (x[i - 1] < x[i]) {
      let ahead = i + 1;
      while (ahead < iMax && x[ahead] === x[i]) ahead += 1;
      if (x[ahead] < x[i]) {
        out[m++] = (i + ahead - 1) >> 1;
        i = ahead;
      }
    }
    i += 1;
  }
  return out.slice(0, m);
}

/**
 * Minimum of `x` from each sample back to (not including) the nearest strictly
 * larger sample, or to the start: scipy's left base search, for every sample at
 * once with a monotonic stack (O(N) instead of O(N·K)). `step` -1 scans from the end.
 * @param {Float64Array} x [N]
 * @param {1 | -1} step
 * @returns {Float64Array} [N]
 */
function baseMinima(x, step) {
  const n = x.length;
  const out = new Float64Array(n);
  const stack = new Int32Array(n);
  const segMin = new Float64Array(n); // min over (entry below, entry]
  let top = 0;
  for (let k = 0, i = step > 0 ? 0 : n - 1; k < n; k += 1, i += step) {
    let run = x[i];
    while (top > 0 && x[stack[top - 1]] <= x[i]) {
      top -= 1;
      if (segMin[top] < run) run = segMin[top];
    }
    stack[top] = i;
    segMin[top] = run;
    top += 1;
    out[i] = run;
  }
  return out;
}

/**
 * scipy.signal.peak_prominences over the whole signal (wlen=None):
 * `x[p] - max(left base minimum, right base minimum)`.
 * @param {Float64Array} x [N], NaN-free
 * @param {Int32Array} peakIdx [K] indices into x
 * @returns {Float64Array} [K] prominences, units of x
 */
export function prominences(x, peakIdx) {
  const left = baseMinima(x, 1);
  const right = baseMinima(x, -1);
  const out = new Float64Array(peakIdx.length);
  for (let k = 0; k < peakIdx.length; k += 1) {
    const p = peakIdx[k];
    out[k] = x[p] - Math.max(left[p], right[p]);
  }
  return out;
}

/**
 * `mtp.peaks`: the motion units' peaks, local maxima whose prominence is at least
 * `prominenceRatio` × their height; the first and last frames may be peaks.
 * @param {Float64Array} curve [F]
 * @param {number} [prominenceRatio=0.1]
 * @returns {Int32Array} [K] frames, ascending
 */
export function peaks(curve, prominenceRatio = 0.1) {
  const n = curve.length;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i += 1) {
    if (curve[i] < lo) lo = curve[i];
    if (curve[i] > hi) hi = curve[i];
  }
  const padded = new Float64Array(n + 2);
  padded.fill(lo - (hi - lo + 1.0));
  padded.set(curve, 1);
  const idx = localMaxima(padded);
  const prom = prominences(padded, idx);
  const kept = [];
  for (let k = 0; k < idx.length; k += 1) {
    if (prom[k] >= prominenceRatio * Math.abs(padded[idx[k]])) kept.push(idx[k] - 1);
  }
  return Int32Array.from(kept);
}
