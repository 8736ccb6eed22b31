"""The centre-of-mass path (motioncore.laban.com_path) and its measures
(motioncore.laban.com_errors): the leg-line model, the sparse operators behind the
optimiser, fixed pivots and holds, and flights made ballistic."""

from __future__ import annotations

import math

import numpy as np
import pytest

from motioncore.laban import com_path, score
from motioncore.laban.com_errors import GRAVITY, com_errors, physics_residuals, unreachable
from motioncore.laban.synthesize import FPS, synthesize
from support.paths import SAMPLE_DIR

SCORES = SAMPLE_DIR / "scores"


def test_each_frame_pushes_along_its_own_leg_line() -> None:
    """A body standing still needs g straight up: over its foot that is free, over a
    foot 0.3 m to the side the part across the leg is left over (g sin θ)."""
    frames = 60
    com = np.tile([0.0, 0.9, 0.0], (frames, 1))
    feet = np.zeros((frames, 2, 3))
    feet[30:, 1] = (0.3, 0.0, 0.0)
    down = np.zeros((frames, 2), dtype=bool)
    down[:30, 0] = True  # over the left foot
    down[30:, 1] = True  # then only on the right foot, off to the side
    theta = math.atan2(0.3, 0.9)
    expected = 0.5 * (9.81 * math.sin(theta)) ** 2
    result = com_errors(com, feet, down, 60.0, 0.9)
    assert result.physics_m2_s4 == pytest.approx(expected, rel=1e-9)


def test_the_projections_leave_what_no_leg_can_push() -> None:
    rng = np.random.default_rng(3)
    frames = 400
    com = rng.normal(size=(frames, 3)) * 0.1 + (0.0, 0.9, 0.0)
    feet = rng.normal(size=(frames, 2, 3)) * 0.3
    feet[..., 1] = 0.0
    down = rng.random((frames, 2)) > 0.4
    need = rng.normal(size=(frames, 3)) * 5.0 - GRAVITY
    p = unreachable(com, feet, down, need)
    assert np.allclose(np.einsum("fij,fjk->fik", p, p), p, atol=1e-9)  # projections
    residual = np.einsum("fij,fj->fi", p, need)
    air = ~down.any(axis=1)
    assert np.allclose(residual[air], need[air])
    pushed = need - residual  # what the legs supply: never a pull
    for f in np.flatnonzero(down.sum(axis=1) == 1):
        line = com[f] - feet[f, int(np.argmax(down[f]))]
        assert np.dot(pushed[f], line) >= -1e-9
        assert np.linalg.norm(np.cross(pushed[f], line)) < 1e-6 * (1 + np.linalg.norm(line))


def test_the_second_difference_is_numpys_gradient_twice() -> None:
    x = np.random.default_rng(0).normal(size=(50, 3))
    expected = np.gradient(np.gradient(x, axis=0, edge_order=2), axis=0, edge_order=2) * 3600.0
    assert np.allclose(com_path.second_difference(50, 60.0) @ x, expected)


def test_a_free_fall_is_what_the_physics_term_expects() -> None:
    t = np.arange(60) / 60.0
    falling = np.stack([t, 2.0 - 0.5 * 9.81 * t**2, 0 * t], -1)
    feet = np.zeros((60, 2, 3))
    residual = physics_residuals(falling, feet, np.zeros((60, 2), dtype=bool), 60.0)
    assert np.abs(residual).max() < 1e-9


def _optimised(name: str) -> tuple[com_path.Optimised, np.ndarray]:
    """The optimiser's result for a test score and its ``fixed`` frames."""
    captured: list[tuple[com_path.Optimised, np.ndarray]] = []
    original = com_path.optimise

    def spy(
        times: np.ndarray, start: np.ndarray, legs: com_path.Legs, fixed: np.ndarray, fps: float
    ) -> com_path.Optimised:
        result = original(times, start, legs, fixed, fps)
        captured.append((result, fixed))
        return result

    try:
        com_path.optimise = spy  # type: ignore[assignment]
        synthesize(score.load(SCORES / f"{name}.json"))
    finally:
        com_path.optimise = original  # type: ignore[assignment]
    return captured[0]


@pytest.mark.parametrize("name", ["walk_forward", "run", "jump_forms", "hold", "half_turn"])
def test_the_optimiser_lowers_the_error_a_lot(name: str) -> None:
    result, _ = _optimised(name)
    assert result.evaluations > 1
    assert result.cost_after < 0.3 * result.cost_before


@pytest.mark.parametrize("name", ["hold", "half_turn"])
def test_pivots_and_holds_stay_fixed_and_segments_arrive_at_rest(name: str) -> None:
    result, fixed = _optimised(name)
    assert fixed.any()
    path = result.path
    edges = np.flatnonzero(np.diff(fixed.astype(np.int8)) == 1) + 1  # first fixed frames
    for first in edges:
        run = path[first : first + int(np.argmin(fixed[first:])) or None]
        assert np.ptp(run, axis=0).max() < 1e-9  # the body stands still
        # It arrives at rest: the last frame moves it < 4 mm (a walk moves 2.3 cm a frame).
        assert np.linalg.norm(path[first] - path[first - 1]) < 0.004


def test_flights_become_ballistic() -> None:
    loaded = score.load(SCORES / "run.json")
    out = synthesize(loaded)
    times = np.arange(out.clip.num_frames) / FPS
    down = np.zeros(len(times), dtype=bool)
    for p in out.prints.prints:
        down |= (times >= p.start_s - 0.02) & (times <= p.end_s + 0.02)
    hips = out.clip.translations[:, 0]
    accel = np.gradient(np.gradient(hips, axis=0), axis=0) * FPS * FPS
    flight = ~down
    flight[:3] = flight[-3:] = False
    assert flight.sum() > 20
    # In the air the body falls with g: the vertical acceleration is -9.81 m/s².
    assert np.median(accel[flight, 1]) == pytest.approx(-9.81, abs=1.5)
