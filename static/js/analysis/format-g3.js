// @ts-check
// Python's `format(x, ".3g")` for the browser's re-scoring: the numbers in motioncore's
// "no reliable candidate" sentences (mtp.js), written the same way. Plain ES module.

/**
 * Python's `format(x, ".3g")` (three significant digits, exact ties to even,
 * scientific below 1e-4 or from 1e3 with a two-digit exponent, trailing zeros dropped).
 * @param {number} x
 * @returns {string}
 */
export function formatG3(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return `${sign}0`;
  const [mant, expText] = Math.abs(x).toExponential(100).split("e");
  const digits = mant.replace(".", "");
  let exp = Number(expText);
  let head = Number(digits.slice(0, 3));
  const rest = digits.slice(3);
  const tie = rest[0] === "5" && /^50*$/.test(rest);
  if (rest[0] > "5" || (rest[0] === "5" && !tie) || (tie && head % 2 === 1)) head += 1;
  if (head === 1000) [head, exp] = [100, exp + 1];
  const ds = String(head);
  const trim = (/** @type {string} */ whole, /** @type {string} */ frac) => {
    const f = frac.replace(/0+$/, "");
    return f ? `${whole}.${f}` : whole;
  };
  if (exp >= -4 && exp < 3) {
    if (exp < 0) return sign + trim("0", "0".repeat(-exp - 1) + ds);
    return sign + trim(ds.slice(0, exp + 1), ds.slice(exp + 1));
  }
  const e = `${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  return `${sign}${trim(ds[0], ds.slice(1))}e${e}`;
}
