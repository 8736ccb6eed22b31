"""The centre-of-mass path, optimised (seed 003 §7.2 and §7.6, after van de Panne 1997).

The path is a cubic B-spline per segment: the score is cut at its pivots and holds
(a turn or hold in a support column, or a turn of the body), where the body stands
still, so those spans are fixed and each segment between them starts and ends at rest
on the fixed points (§7.6: the optimiser does not move them). Knots are
:data:`KNOT_SPACING_S` apart. The control points are found by Levenberg-Marquardt
steps on the sparse normal equations (scipy's SuperLU, an analytic Jacobian; scipy's
``least_squares`` with its sparse LSMR solver took 11-13 s on a 32-bar score against
0.7 s for the whole animation now), minimising

* ε_physics: the part of the acceleration the legs cannot produce
  (:func:`motioncore.laban.com_errors.physics_residuals`), weight 1 (m/s²);
* ε_comfort: each standing leg's stretch from its comfortable length (the nominal
  one, shorter or longer by the support's level), weight :data:`COMFORT_WEIGHT` (per
  metre);
* hard-ish limits: a standing leg may not be longer than it can reach nor shorter
  than :data:`CROUCH_SHARE` of its nominal length (weight :data:`REACH_WEIGHT` per
  metre beyond either);
* a weak pull towards the starting path (:data:`FIDELITY_WEIGHT` per metre), which
  keeps the problem well posed where nothing else constrains it.

The starting path is the footprints' centre path; flights then become ballistic (the
optimiser lifts the body into a parabola, pushing off and landing on the legs).

Shapes: ``F`` frames; positions in metres, y up.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.interpolate import BSpline
from scipy.sparse.linalg import lsqr, splu

from motioncore.laban.com_errors import GRAVITY, unreachable

FloatArray = NDArray[np.float64]
KNOT_SPACING_S = 0.1
COMFORT_WEIGHT = 25.0
REACH_WEIGHT = 200.0
CROUCH_SHARE = 0.85
"""A standing leg may not be shorter than this share of its nominal length (weight
:data:`REACH_WEIGHT` per metre below it)."""
FIDELITY_WEIGHT = 1.0
MAX_EVALUATIONS = 60
TOLERANCE = 1e-5


@dataclass(frozen=True)
class Legs:
    """What the optimiser needs of the legs: contact points ``feet`` ``[F, 2, 3]`` (left,
    right; metres), ``down`` ``[F, 2]`` on the ground, the ``nominal_m`` standing length
    (centre of mass to contact point), the hip joints' offsets from the centre
    ``hip_offsets`` ``[F, 2, 3]`` and the longest ``reach_m`` ``[F, 2]`` from a hip
    joint to the contact point (longer where the foot may roll onto its heel or ball)."""

    feet: FloatArray
    down: NDArray[np.bool_]
    nominal_m: float
    hip_offsets: FloatArray
    reach_m: FloatArray
    comfort_m: FloatArray | None = None
    """The comfortable length ``[F, 2]`` (m) of each standing leg, where ε_comfort
    pulls it: shorter bent (a low support), longer on the toes (high); ``nominal_m``
    everywhere when ``None``. The crouch limit stays relative to ``nominal_m``."""


@dataclass(frozen=True)
class Spline:
    """The path as ``positions = basis @ free + fixed`` (``basis`` ``[F, P]`` sparse,
    ``free`` ``[P, 3]`` the optimised control points, ``fixed`` ``[F, 3]``)."""

    basis: sp.csr_matrix
    fixed: FloatArray

    def positions(self, free: FloatArray) -> FloatArray:
        return np.asarray(self.basis @ free + self.fixed, dtype=np.float64)


@dataclass(frozen=True)
class Optimised:
    path: FloatArray
    evaluations: int
    cost_before: float
    cost_after: float


def fixed_spans(times: FloatArray, spans_s: list[tuple[float, float]]) -> NDArray[np.bool_]:
    """``[F]``: the frames inside a pivot or hold span (seconds), where the body stands."""
    fixed = np.zeros(len(times), dtype=bool)
    for a, b in spans_s:
        fixed |= (times >= a - 1e-9) & (times <= b + 1e-9)
    return fixed


def still(path: FloatArray, fixed: NDArray[np.bool_]) -> FloatArray:
    """``path`` ``[F, 3]`` with each run of ``fixed`` frames held at its mean position:
    the body stands still through a pivot or hold."""
    out = path.copy()
    edges = np.flatnonzero(np.diff(np.concatenate([[0], fixed.astype(np.int8), [0]])))
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        out[a:b] = path[a:b].mean(axis=0)
    return out


def spline(times: FloatArray, start: FloatArray, fixed: NDArray[np.bool_]) -> Spline:
    """The segmented spline through ``start`` ``[F, 3]``: the ``fixed`` frames keep their
    positions; each run of free frames between them is a clamped cubic B-spline whose
    end control points hold it at rest on its fixed neighbours (or on its own first and
    last frames at the ends of the score)."""
    frames = len(times)
    anchors = fixed.copy()
    anchors[0] = anchors[-1] = True
    offset = np.where(anchors[:, None], start, 0.0)
    columns = 0
    blocks: list[tuple[int, sp.coo_matrix, int]] = []  # first frame, basis, first column
    index = np.flatnonzero(anchors)
    for a, b in itertools.pairwise(index):
        if b - a < 2:
            continue
        basis = _clamped_basis(times[a : b + 1])
        n = basis.shape[1]
        ends = (
            basis[:, [0, 1]].sum(axis=1).A1[:, None] * start[a]
            + basis[:, [n - 2, n - 1]].sum(axis=1).A1[:, None] * start[b]
        )
        offset[a + 1 : b] = ends[1:-1]
        inner = basis[1:-1, 2 : n - 2]
        blocks.append((int(a) + 1, inner.tocoo(), columns))
        columns += inner.shape[1]
    if not blocks:
        return Spline(sp.csr_matrix((frames, 0)), offset)
    rows = np.concatenate([part.row + first for first, part, _ in blocks])
    cols = np.concatenate([part.col + col for _, part, col in blocks])
    values = np.concatenate([part.data for _, part, _ in blocks])
    matrix = sp.coo_matrix((values, (rows, cols)), shape=(frames, columns))
    return Spline(matrix.tocsr(), offset)


def _clamped_basis(times: FloatArray) -> sp.csc_matrix:
    """The clamped cubic B-spline basis ``[T, n]`` over ``times`` (knots every
    :data:`KNOT_SPACING_S`, at least one interval)."""
    t0, t1 = float(times[0]), float(times[-1])
    intervals = max(1, round((t1 - t0) / KNOT_SPACING_S))
    inner = np.linspace(t0, t1, intervals + 1)[1:-1]
    knots = np.concatenate([[t0] * 4, inner, [t1] * 4])
    basis = BSpline.design_matrix(np.clip(times, t0, t1), knots, 3)
    return sp.csc_matrix(basis)


def second_difference(frames: int, fps: float) -> sp.csr_matrix:
    """``[F, F]``: accelerations (per second²) from positions, as :func:`numpy.gradient`
    applied twice with second-order edges."""
    if frames < 3:
        return sp.csr_matrix((frames, frames))
    rows = [0, 0, 0]
    cols = [0, 1, 2]
    vals = [-1.5, 2.0, -0.5]
    inner = np.arange(1, frames - 1)
    rows += [*inner, *inner]
    cols += [*(inner - 1), *(inner + 1)]
    vals += [-0.5] * len(inner) + [0.5] * len(inner)
    rows += [frames - 1] * 3
    cols += [frames - 3, frames - 2, frames - 1]
    vals += [0.5, -2.0, 1.5]
    gradient = sp.csr_matrix((vals, (rows, cols)), shape=(frames, frames))
    return (gradient @ gradient * (fps * fps)).tocsr()


def optimise(
    times: FloatArray, start: FloatArray, legs: Legs, fixed: NDArray[np.bool_], fps: float
) -> Optimised:
    """The optimised centre-of-mass path ``[F, 3]`` (see the module docstring) from the
    starting path ``start`` ``[F, 3]``; ``fixed`` ``[F]`` frames do not move."""
    start = still(start, fixed)
    shape = spline(times, start, fixed)
    columns = shape.basis.shape[1]
    if columns == 0:
        return Optimised(start.copy(), 0, 0.0, 0.0)
    problem = _Problem(shape, start, legs, second_difference(len(times), fps))
    free0 = np.stack(
        [lsqr(shape.basis, start[:, a] - shape.fixed[:, a])[0] for a in range(3)], axis=1
    )
    free, evaluations = _levenberg_marquardt(problem, free0.ravel())
    before = float(np.sum(problem.residuals(free0.ravel()) ** 2))
    after = float(np.sum(problem.residuals(free) ** 2))
    return Optimised(shape.positions(free.reshape(columns, 3)), evaluations, before, after)


def _levenberg_marquardt(problem: _Problem, x: FloatArray) -> tuple[FloatArray, int]:
    """Minimise ``|problem.residuals(x)|²`` from ``x``: Levenberg-Marquardt steps with
    Marquardt's diagonal scaling, the sparse normal equations factorised by SuperLU
    (:func:`scipy.sparse.linalg.splu`); stops when a step gains less than
    :data:`TOLERANCE` of the cost or after :data:`MAX_EVALUATIONS` evaluations."""
    residual = problem.residuals(x)
    cost = float(residual @ residual)
    damping = 1e-3
    evaluations = 1
    while evaluations < MAX_EVALUATIONS:
        jacobian = problem.jacobian(x)
        gradient = jacobian.T @ residual
        normal = (jacobian.T @ jacobian).tocsc()
        scale = np.maximum(normal.diagonal(), 1e-9)
        improved = False
        while evaluations < MAX_EVALUATIONS and damping < 1e10:
            step = splu((normal + sp.diags(damping * scale)).tocsc()).solve(-gradient)
            trial = problem.residuals(x + step)
            evaluations += 1
            trial_cost = float(trial @ trial)
            if trial_cost < cost:
                improved = True
                gain = cost - trial_cost
                x, residual, cost = x + step, trial, trial_cost
                damping = max(damping / 3.0, 1e-9)
                break
            damping *= 4.0
        if not improved or gain < TOLERANCE * cost:
            break
    return x, evaluations


class _Problem:
    """The least-squares problem: residuals (physics, comfort, reach, fidelity; see the
    module docstring) and their Jacobian. The physics rows are the projection of
    ``a - g`` taken as constant for the derivative (its change with the leg lines is
    two orders of magnitude below the acceleration's own, ``fps²`` per metre)."""

    def __init__(self, shape: Spline, start: FloatArray, legs: Legs, accel: sp.csr_matrix):
        self.shape, self.start, self.legs = shape, start, legs
        self.columns = shape.basis.shape[1]
        self.accel_basis = (accel @ shape.basis).tocsr()
        self.accel_fixed = np.asarray(accel @ shape.fixed)
        self.eye_basis = sp.kron(shape.basis, sp.eye(3)).tocsr()
        self.eye_accel = sp.kron(self.accel_basis, sp.eye(3)).tocsr()

    def _state(self, x: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        free = x.reshape(self.columns, 3)
        path = self.shape.positions(free)
        need = np.asarray(self.accel_basis @ free) + self.accel_fixed - GRAVITY
        projection = unreachable(path, self.legs.feet, self.legs.down, need)
        return path, need, projection

    def residuals(self, x: FloatArray) -> FloatArray:
        path, need, projection = self._state(x)
        legs = self.legs
        physics = np.einsum("fij,fj->fi", projection, need)
        lengths = np.linalg.norm(path[:, None, :] - legs.feet, axis=-1)
        target = legs.nominal_m if legs.comfort_m is None else legs.comfort_m
        comfort = np.where(legs.down, lengths - target, 0.0) * COMFORT_WEIGHT
        hip_legs = np.linalg.norm(path[:, None, :] + legs.hip_offsets - legs.feet, axis=-1)
        reach = np.where(legs.down, np.maximum(hip_legs - legs.reach_m, 0.0), 0.0)
        reach += np.where(legs.down, np.maximum(CROUCH_SHARE * legs.nominal_m - lengths, 0.0), 0.0)
        fidelity = (path - self.start) * FIDELITY_WEIGHT
        return np.concatenate(
            [physics.ravel(), comfort.ravel(), reach.ravel() * REACH_WEIGHT, fidelity.ravel()]
        )

    def jacobian(self, x: FloatArray) -> sp.csr_matrix:
        path, _, projection = self._state(x)
        legs = self.legs
        frames = len(path)
        physics = _block_diagonal(projection) @ self.eye_accel
        to_feet = path[:, None, :] - legs.feet
        lengths = np.linalg.norm(to_feet, axis=-1)
        unit = to_feet / np.maximum(np.linalg.norm(to_feet, axis=-1, keepdims=True), 1e-9)
        comfort = np.where(legs.down[..., None], unit, 0.0) * COMFORT_WEIGHT
        to_hips = to_feet + legs.hip_offsets
        hip_legs = np.linalg.norm(to_hips, axis=-1, keepdims=True)
        beyond = legs.down[..., None] & (hip_legs > legs.reach_m[..., None])
        reach = np.where(beyond, to_hips / np.maximum(hip_legs, 1e-9), 0.0) * REACH_WEIGHT
        crouched = legs.down[..., None] & (lengths[..., None] < CROUCH_SHARE * legs.nominal_m)
        reach -= np.where(crouched, unit, 0.0) * REACH_WEIGHT
        rows = [
            physics,
            _rows_of(comfort, frames) @ self.eye_basis,
            _rows_of(reach, frames) @ self.eye_basis,
            self.eye_basis * FIDELITY_WEIGHT,
        ]
        return sp.vstack(rows).tocsr()


def _block_diagonal(blocks: FloatArray) -> sp.csr_matrix:
    """``[3F, 3F]`` from ``[F, 3, 3]`` blocks."""
    frames = len(blocks)
    base = np.arange(frames)[:, None, None] * 3
    rows = np.broadcast_to(base + np.arange(3)[None, :, None], blocks.shape)
    cols = np.broadcast_to(base + np.arange(3)[None, None, :], blocks.shape)
    return sp.csr_matrix((blocks.ravel(), (rows.ravel(), cols.ravel())), shape=(3 * frames,) * 2)


def _rows_of(gradients: FloatArray, frames: int) -> sp.csr_matrix:
    """``[2F, 3F]``: one row per (frame, foot) holding that row's gradient ``[F, 2, 3]``
    with respect to the frame's position."""
    rows = np.repeat(np.arange(2 * frames), 3)
    cols = (np.arange(frames)[:, None, None] * 3 + np.arange(3)[None, None, :]).repeat(2, 1)
    return sp.csr_matrix((gradients.ravel(), (rows, cols.ravel())), shape=(2 * frames, 3 * frames))
