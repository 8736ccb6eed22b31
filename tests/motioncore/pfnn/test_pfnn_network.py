"""The PFNN phase function, the numpy runtime's three modes against the exact network,
training with torch (deterministic, the loss falls) and path-driven generation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh
from motioncore.errors import MotionCoreError
from motioncore.pfnn import dataset as data
from motioncore.pfnn import generate as gen
from motioncore.pfnn.network import MODES, Runtime, Weights
from motioncore.pfnn.phase import TAU, coefficients
from support.paths import SAMPLE_DIR

torch = pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")
from motioncore.pfnn import train  # noqa: E402


@pytest.mark.parametrize(("blend", "experts"), [("smoothstep", 6), ("catmull-rom", 4)])
def test_coefficients_sum_to_one_hit_each_expert_and_are_cyclic(blend: str, experts: int) -> None:
    phase = np.linspace(0.0, 3 * TAU, 1001)
    c = coefficients(phase, experts, blend)  # type: ignore[arg-type]
    np.testing.assert_allclose(c.sum(axis=1), 1.0, atol=1e-12)
    at_experts = coefficients(np.arange(experts) * TAU / experts, experts, blend)  # type: ignore[arg-type]
    np.testing.assert_allclose(at_experts, np.eye(experts), atol=1e-12)
    np.testing.assert_allclose(coefficients(phase + TAU, experts, blend), c, atol=1e-9)  # type: ignore[arg-type]
    # Continuous in φ (no jump anywhere, the wrap included).
    assert np.abs(np.diff(c, axis=0)).max() < 0.05


def test_catmull_rom_is_smooth_in_its_slope_too() -> None:
    phase = np.linspace(0.0, TAU, 4001)
    c = coefficients(phase, 4, "catmull-rom")
    slope = np.diff(c, axis=0)
    assert np.abs(np.diff(slope, axis=0)).max() < 1e-4  # C¹: no kinks at the experts


def test_bad_blends_are_refused() -> None:
    with pytest.raises(MotionCoreError, match="unknown phase blend"):
        coefficients([0.0], 4, "linear")  # type: ignore[arg-type]
    with pytest.raises(MotionCoreError, match="at least 4"):
        coefficients([0.0], 3, "catmull-rom")


@pytest.fixture(scope="module")
def walks() -> data.Dataset:
    walk60, xia = (
        bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh"),
        bvh.load(SAMPLE_DIR / "deep-motion-editing" / "xia_angry_13_000.bvh"),
    )
    return data.build({"a": walk60, "b": xia, "c": walk60, "d": xia})


@pytest.fixture(scope="module")
def trained(walks: data.Dataset) -> Weights:
    return train.train(walks, train.TrainConfig(epochs=6, hidden=64))


def test_training_lowers_the_loss_and_is_reproducible(
    walks: data.Dataset, trained: Weights
) -> None:
    history = trained.meta["history"]
    assert len(history) == 6 and history[-1]["train_l1"] < history[0]["train_l1"]
    assert history[-1]["lr"] == pytest.approx(1e-5, rel=1e-6)  # decayed from 1e-3
    again = train.train(walks, train.TrainConfig(epochs=6, hidden=64))
    for (w1, b1), (w2, b2) in zip(trained.layers, again.layers, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    assert trained.sizes == (data.INPUT_SIZE, 64, 64, data.OUTPUT_SIZE)
    assert trained.meta["samples"]["train"] == int(walks.rows("train").sum())


def test_the_runtime_modes_match_the_exact_network(
    walks: data.Dataset, trained: Weights, tmp_path: Path
) -> None:
    rows = np.flatnonzero(walks.rows("test"))[:40]
    exact = trained.predict(walks.inputs[rows], walks.phase[rows])
    error = {}
    for mode in MODES:
        runtime = Runtime(trained, mode)
        steps = np.stack([runtime.step(walks.inputs[r], walks.phase[r]) for r in rows])
        error[mode] = float(np.abs((steps - exact) / trained.output_std).max())
    assert error["cubic"] < 1e-4  # the phase function itself, evaluated every step
    assert error["constant"] < 0.5 and error["linear"] < 1.0  # tables of 50 and 10 phases
    memory = {mode: Runtime(trained, mode).nbytes for mode in MODES}
    assert memory["constant"] > memory["linear"] > memory["cubic"] == trained.nbytes
    trained.save(tmp_path / "w.npz")
    loaded = Weights.load(tmp_path / "w.npz")
    np.testing.assert_array_equal(loaded.predict(walks.inputs[rows], walks.phase[rows]), exact)
    assert loaded.meta["config"]["blend"] == "catmull-rom"


def test_generation_follows_the_frames_it_is_asked_for(trained: Weights) -> None:
    path = gen.Path.parse("0,0;0,4;2,6")
    out = gen.generate(trained, path, 1.2, seconds=2.0)
    assert out.clip.num_frames == 120 and out.clip.fps == data.FPS
    assert np.isfinite(out.clip.rotations).all() and np.isfinite(out.clip.translations).all()
    assert set(out.as_dict()) >= {"frames", "fps", "path_rms_m", "foot_slide_mps"}
    with pytest.raises(MotionCoreError, match="speed"):
        gen.generate(trained, path, 0.0)
    with pytest.raises(MotionCoreError, match="path"):
        gen.Path.parse("0,0")
    with pytest.raises(MotionCoreError, match="x,z"):
        gen.Path.parse("a,b;1,2")
