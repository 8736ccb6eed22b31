"""Property tests of :mod:`motioncore.quat` (hypothesis), with scipy as an independent reference.

Quaternions are ``(w, x, y, z)``; ``q`` and ``-q`` are the same rotation, so rotations
are compared through their matrices (or with :func:`_same_rotation`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.typing import NDArray
from scipy.spatial.transform import Rotation

from motioncore import quat

FloatArray = NDArray[np.float64]

TOL = 1e-9
PROPERTY = settings(max_examples=200, deadline=None)
ORDERS = quat.EULER_ORDERS
HALF_PI = np.pi / 2


def _floats(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


def _batch(shape_tail: tuple[int, ...], low: float, high: float) -> st.SearchStrategy[FloatArray]:
    """Arrays ``[n, *shape_tail]`` (``n`` in 1..6) of floats in ``[low, high]``."""
    return st.integers(1, 6).flatmap(
        lambda n: arrays(np.float64, (n, *shape_tail), elements=_floats(low, high))
    )


def _unit_quats(n: int | None = None) -> st.SearchStrategy[FloatArray]:
    """Unit quaternions ``[n, 4]`` (random ``n`` in 1..6 when ``None``), either sign of ``w``."""
    raw = (
        _batch((4,), -1.0, 1.0)
        if n is None
        else arrays(np.float64, (n, 4), elements=_floats(-1.0, 1.0))
    )
    return raw.filter(lambda q: bool(np.all(np.linalg.norm(q, axis=-1) > 1e-3))).map(
        lambda q: q / np.linalg.norm(q, axis=-1, keepdims=True)
    )


def _vectors(n: int | None = None) -> st.SearchStrategy[FloatArray]:
    """Non-degenerate 3-vectors ``[n, 3]`` with coordinates in ``[-10, 10]``."""
    raw = (
        _batch((3,), -10.0, 10.0)
        if n is None
        else arrays(np.float64, (n, 3), elements=_floats(-10.0, 10.0))
    )
    return raw.filter(lambda v: bool(np.all(np.linalg.norm(v, axis=-1) > 1e-3)))


def _same_rotation(a: FloatArray, b: FloatArray, atol: float = TOL) -> None:
    np.testing.assert_allclose(quat.to_matrix(a), quat.to_matrix(b), rtol=0.0, atol=atol)


def _equal_up_to_sign(a: FloatArray, b: FloatArray, atol: float = TOL) -> None:
    """``a[n] == ±b[n]`` row by row (the sign of a quaternion is free)."""
    sign = np.where(np.sum(a * b, axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
    np.testing.assert_allclose(a, sign * b, rtol=0.0, atol=atol)


def _unit(v: FloatArray) -> FloatArray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


# --------------------------------------------------------------------------- Euler angles


@pytest.mark.parametrize("order", ORDERS)
@PROPERTY
@given(angles=_batch((3,), -2 * np.pi, 2 * np.pi))
def test_euler_round_trip_keeps_the_rotation(order: str, angles: FloatArray) -> None:
    q = quat.from_euler(angles, order)
    back = quat.from_euler(quat.to_euler(q, order), order)
    _same_rotation(back, q)


@pytest.mark.parametrize("order", ORDERS)
@PROPERTY
@given(q=_unit_quats())
def test_euler_of_any_rotation_is_in_range_and_rebuilds_it(order: str, q: FloatArray) -> None:
    angles = quat.to_euler(q, order)
    assert np.all(np.abs(angles[:, [0, 2]]) <= np.pi)
    assert np.all(np.abs(angles[:, 1]) <= HALF_PI)
    _same_rotation(quat.from_euler(angles, order), q)


@pytest.mark.parametrize("order", ORDERS)
@PROPERTY
@given(
    angles=st.integers(1, 6).flatmap(
        lambda n: st.tuples(
            arrays(np.float64, n, elements=_floats(-np.pi + 1e-6, np.pi - 1e-6)),
            arrays(np.float64, n, elements=_floats(-HALF_PI + 1e-3, HALF_PI - 1e-3)),
            arrays(np.float64, n, elements=_floats(-np.pi + 1e-6, np.pi - 1e-6)),
        )
    )
)
def test_euler_angles_come_back_equal_away_from_gimbal_lock(
    order: str, angles: tuple[FloatArray, FloatArray, FloatArray]
) -> None:
    given_angles = np.stack(angles, axis=-1)
    back = quat.to_euler(quat.from_euler(given_angles, order), order)
    np.testing.assert_allclose(back, given_angles, rtol=0.0, atol=TOL)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("sign", [1.0, -1.0])
@PROPERTY
@given(
    first=_floats(-np.pi, np.pi),
    last=_floats(-np.pi, np.pi),
    tilt=st.sampled_from([0.0, 1e-15, 1e-13, 1e-11, 1e-9, 1e-7, 1e-5]),
)
def test_euler_at_and_near_gimbal_lock_keeps_the_rotation(
    order: str, sign: float, first: float, last: float, tilt: float
) -> None:
    angles = np.array([first, sign * (HALF_PI - tilt), last])
    q = quat.from_euler(angles, order)
    back = quat.to_euler(q, order)
    _same_rotation(quat.from_euler(back, order), q)
    assert abs(back[1]) <= HALF_PI
    if tilt == 0.0:  # locked: the first angle carries the whole turn
        assert abs(back[2]) < TOL


@pytest.mark.parametrize("order", ORDERS)
@PROPERTY
@given(angles=_batch((3,), -2 * np.pi, 2 * np.pi))
def test_from_euler_matches_scipy_intrinsic_rotations(order: str, angles: FloatArray) -> None:
    expected = Rotation.from_euler(order.upper(), angles).as_matrix()
    np.testing.assert_allclose(quat.to_matrix(quat.from_euler(angles, order)), expected, atol=TOL)


@pytest.mark.parametrize("order", ORDERS)
def test_from_euler_is_the_product_of_the_three_elementary_rotations(order: str) -> None:
    angles = np.array([0.3, -1.1, 2.5])
    axes = {"X": [1.0, 0.0, 0.0], "Y": [0.0, 1.0, 0.0], "Z": [0.0, 0.0, 1.0]}
    elementary = [
        quat.from_axis_angle(np.array(axes[c]), a) for c, a in zip(order, angles, strict=True)
    ]
    expected = quat.mul(quat.mul(elementary[0], elementary[1]), elementary[2])
    np.testing.assert_allclose(quat.from_euler(angles, order), expected, atol=1e-15)
    np.testing.assert_allclose(quat.from_euler(angles, order.lower()), expected, atol=1e-15)


@PROPERTY
@given(
    data=st.data(),
    frames=st.integers(1, 4),
    columns=st.integers(1, 7),
)
def test_from_euler_mixed_matches_from_euler_column_by_column(
    data: st.DataObject, frames: int, columns: int
) -> None:
    orders = data.draw(st.lists(st.sampled_from(ORDERS), min_size=columns, max_size=columns))
    angles = data.draw(
        arrays(np.float64, (frames, columns, 3), elements=_floats(-2 * np.pi, 2 * np.pi))
    )
    mixed = quat.from_euler_mixed(angles, orders)
    assert mixed.shape == (frames, columns, 4)
    for n, order in enumerate(orders):
        np.testing.assert_allclose(
            mixed[:, n], quat.from_euler(angles[:, n], order), rtol=0.0, atol=1e-15
        )


def test_unknown_euler_order_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="Euler order"):
        quat.from_euler(np.zeros(3), "XXY")
    with pytest.raises(ValueError, match="Euler order"):
        quat.to_euler(quat.identity(), "XY")


# --------------------------------------------------------------------------- matrices


@PROPERTY
@given(q=_unit_quats())
def test_to_matrix_is_a_rotation_that_from_matrix_inverts(q: FloatArray) -> None:
    m = quat.to_matrix(q)
    np.testing.assert_allclose(
        m @ np.swapaxes(m, -1, -2), np.broadcast_to(np.eye(3), m.shape), atol=TOL
    )
    np.testing.assert_allclose(np.linalg.det(m), 1.0, atol=TOL)
    back = quat.from_matrix(m)
    assert np.all(back[:, 0] >= 0.0)
    np.testing.assert_allclose(np.linalg.norm(back, axis=-1), 1.0, atol=1e-12)
    _equal_up_to_sign(back, q)


@PROPERTY
@given(q=_unit_quats())
def test_to_matrix_matches_scipy(q: FloatArray) -> None:
    expected = Rotation.from_quat(q, scalar_first=True).as_matrix()
    np.testing.assert_allclose(quat.to_matrix(q), expected, atol=TOL)


def test_from_matrix_handles_half_turns_about_each_axis() -> None:
    for axis in np.eye(3):
        q = quat.from_axis_angle(axis, np.pi)
        back = quat.from_matrix(quat.to_matrix(q))
        _same_rotation(back, q)
        np.testing.assert_allclose(np.abs(back[1:]), np.abs(axis), atol=1e-12)


# --------------------------------------------------------------------------- products


@PROPERTY
@given(q=_unit_quats(3))
def test_mul_is_associative(q: FloatArray) -> None:
    a, b, c = q
    np.testing.assert_allclose(
        quat.mul(quat.mul(a, b), c), quat.mul(a, quat.mul(b, c)), rtol=0.0, atol=1e-12
    )


@PROPERTY
@given(q=_unit_quats(2))
def test_mul_composes_like_matrices(q: FloatArray) -> None:
    a, b = q
    np.testing.assert_allclose(
        quat.to_matrix(quat.mul(a, b)), quat.to_matrix(a) @ quat.to_matrix(b), atol=TOL
    )


@PROPERTY
@given(q=_unit_quats())
def test_inverse_undoes_the_rotation_on_either_side(q: FloatArray) -> None:
    identity = quat.identity((q.shape[0],))
    np.testing.assert_allclose(quat.mul(q, quat.inverse(q)), identity, atol=1e-12)
    np.testing.assert_allclose(quat.mul(quat.inverse(q), q), identity, atol=1e-12)
    np.testing.assert_allclose(quat.mul(identity, q), q, atol=0.0)


@PROPERTY
@given(q=_unit_quats(), v=_vectors())
def test_rotate_agrees_with_the_matrix(q: FloatArray, v: FloatArray) -> None:
    n = min(len(q), len(v))
    q, v = q[:n], v[:n]
    expected = np.einsum("nij,nj->ni", quat.to_matrix(q), v)
    np.testing.assert_allclose(quat.rotate(q, v), expected, atol=1e-8)
    np.testing.assert_allclose(quat.rotate(-q, v), expected, atol=1e-8)


def test_rotate_broadcasts_one_quaternion_over_many_vectors() -> None:
    q = quat.from_axis_angle(np.array([0.0, 0.0, 1.0]), np.pi / 2)
    v = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    expected = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(quat.rotate(q, v), expected, atol=1e-15)


def test_normalize_makes_unit_quaternions_and_zero_becomes_identity() -> None:
    q = np.array([[2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    out = quat.normalize(q)
    np.testing.assert_allclose(out, [[1, 0, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5]])
    assert q[1, 0] == 0.0  # input untouched


# --------------------------------------------------------------------------- interpolation


@PROPERTY
@given(q=_unit_quats(2))
def test_slerp_starts_at_a_and_ends_at_b(q: FloatArray) -> None:
    a, b = q
    _same_rotation(quat.slerp(a, b, 0.0), a)
    _same_rotation(quat.slerp(a, b, 1.0), b)


@PROPERTY
@given(
    q=_unit_quats(2).filter(lambda q: abs(float(np.dot(q[0], q[1]))) > 1e-3),
    t=arrays(np.float64, 7, elements=_floats(0.0, 1.0)),
)
def test_slerp_turns_at_constant_angular_speed_about_one_axis(q: FloatArray, t: FloatArray) -> None:
    a, b = q
    # The whole turn from a to b, as a rotation vector in a's frame (short arc).
    total = quat.to_rotvec(quat.mul(quat.inverse(a), b))
    path = quat.slerp(a, b, t)
    np.testing.assert_allclose(np.linalg.norm(path, axis=-1), 1.0, atol=1e-12)
    travelled = quat.to_rotvec(quat.mul(quat.inverse(a), path))
    np.testing.assert_allclose(travelled, t[:, None] * total, atol=1e-8)


def test_slerp_of_nearly_equal_quaternions_stays_unit_and_between_them() -> None:
    a = quat.from_rotvec(np.array([0.1, 0.2, 0.3]))
    b = quat.mul(a, quat.from_rotvec(np.array([1e-9, 0.0, 0.0])))
    mid = quat.slerp(a, b, 0.5)
    np.testing.assert_allclose(np.linalg.norm(mid), 1.0, atol=1e-15)
    np.testing.assert_allclose(
        quat.to_rotvec(quat.mul(quat.inverse(a), mid)), [5e-10, 0, 0], atol=1e-15
    )


@PROPERTY
@given(
    q=st.integers(2, 12).flatmap(_unit_quats),
    flips=st.lists(st.booleans(), min_size=12, max_size=12),
)
def test_unroll_makes_consecutive_dots_non_negative_and_keeps_rotations(
    q: FloatArray, flips: list[bool]
) -> None:
    signed = q * np.where(np.array(flips[: len(q)]), -1.0, 1.0)[:, None]
    before = signed.copy()
    out = quat.unroll(signed)
    np.testing.assert_array_equal(signed, before)  # input untouched
    assert np.all(np.sum(out[1:] * out[:-1], axis=-1) >= 0.0)
    np.testing.assert_array_equal(out[0], signed[0])
    np.testing.assert_array_equal(np.abs(out), np.abs(signed))  # each is ±its input


@PROPERTY
@given(q=_unit_quats(15))
def test_unroll_along_another_axis_unrolls_each_row(q: FloatArray) -> None:
    grid = q.reshape(3, 5, 4)  # [joints, frames, 4]
    out = quat.unroll(grid, axis=1)
    for row_in, row_out in zip(grid, out, strict=True):
        np.testing.assert_array_equal(row_out, quat.unroll(row_in))


# --------------------------------------------------------------------------- rotation vectors


@PROPERTY
@given(v=_batch((3,), -1.8, 1.8).filter(lambda v: bool(np.all(np.linalg.norm(v, axis=-1) < 3.1))))
def test_rotvec_round_trip(v: FloatArray) -> None:
    q = quat.from_rotvec(v)
    np.testing.assert_allclose(np.linalg.norm(q, axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(quat.to_rotvec(q), v, rtol=0.0, atol=TOL)
    np.testing.assert_allclose(quat.to_matrix(q), Rotation.from_rotvec(v).as_matrix(), atol=TOL)


@PROPERTY
@given(q=_unit_quats())
def test_rotvec_of_any_rotation_rebuilds_it(q: FloatArray) -> None:
    v = quat.to_rotvec(q)
    assert np.all(np.linalg.norm(v, axis=-1) <= np.pi + 1e-12)
    _same_rotation(quat.from_rotvec(v), q)


def test_rotvec_of_tiny_angles_is_exact() -> None:
    v = np.array([[1e-12, -2e-12, 3e-13], [0.0, 0.0, 0.0], [1e-9, 0.0, 0.0]])
    np.testing.assert_allclose(quat.to_rotvec(quat.from_rotvec(v)), v, rtol=1e-12, atol=1e-24)


@PROPERTY
@given(axis=_vectors(1), angle=_floats(-np.pi, np.pi))
def test_from_axis_angle_agrees_with_from_rotvec(axis: FloatArray, angle: float) -> None:
    unit = _unit(axis[0])
    _same_rotation(quat.from_axis_angle(unit, angle), quat.from_rotvec(unit * angle))


# --------------------------------------------------------------------------- between two directions


@PROPERTY
@given(u=_vectors(6), v=_vectors(6))
def test_between_maps_u_onto_v_by_the_shortest_arc(u: FloatArray, v: FloatArray) -> None:
    q = quat.between(u, v)
    np.testing.assert_allclose(np.linalg.norm(q, axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(quat.rotate(q, _unit(u)), _unit(v), atol=TOL)
    # Shortest arc: the turn angle is the angle between u and v.
    cos_uv = np.clip(np.sum(_unit(u) * _unit(v), axis=-1), -1.0, 1.0)
    np.testing.assert_allclose(quat.angle_between(q, quat.identity()), np.arccos(cos_uv), atol=1e-6)


@PROPERTY
@given(u=_vectors(), scale=_floats(0.01, 100.0))
def test_between_opposite_vectors_is_a_half_turn(u: FloatArray, scale: float) -> None:
    q = quat.between(u, -scale * u)
    np.testing.assert_allclose(np.linalg.norm(q, axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(quat.rotate(q, _unit(u)), -_unit(u), atol=TOL)
    np.testing.assert_allclose(q[:, 0], 0.0, atol=TOL)


@PROPERTY
@given(
    u=_vectors(1),
    side=_vectors(1),
    gap=st.sampled_from([1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-3]),
)
def test_between_nearly_opposite_vectors_still_maps_u_onto_v(
    u: FloatArray, side: FloatArray, gap: float
) -> None:
    unit_u = _unit(u[0])
    perp = np.cross(unit_u, side[0])
    if np.linalg.norm(perp) < 1e-3:
        perp = np.cross(unit_u, [1.0, 0.0, 0.0] if abs(unit_u[0]) < 0.9 else [0.0, 1.0, 0.0])
    v = -np.cos(gap) * unit_u + np.sin(gap) * _unit(perp)
    q = quat.between(unit_u, v)
    np.testing.assert_allclose(quat.rotate(q, unit_u), v, atol=TOL)


def test_between_equal_vectors_is_the_identity() -> None:
    np.testing.assert_allclose(quat.between([0.0, 2.0, 0.0], [0.0, 5.0, 0.0]), [1.0, 0, 0, 0])


def test_angle_between_is_symmetric_and_sign_blind() -> None:
    a = quat.from_rotvec(np.array([0.0, 0.4, 0.0]))
    b = quat.from_rotvec(np.array([0.0, -0.3, 0.0]))
    np.testing.assert_allclose(quat.angle_between(a, b), 0.7, atol=1e-7)
    np.testing.assert_allclose(quat.angle_between(b, -a), 0.7, atol=1e-7)
