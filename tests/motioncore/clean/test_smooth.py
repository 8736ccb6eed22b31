"""Smoothing: Savitzky-Golay, zero-phase Butterworth, dominant frequency."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import quat
from motioncore.clean import smooth
from motioncore.clip import Clip, Skeleton

FPS = 60.0


def _sine(freq_hz: float, seconds: float = 6.0) -> tuple[np.ndarray, np.ndarray]:
    t = np.arange(int(seconds * FPS)) / FPS
    return t, np.sin(2.0 * np.pi * freq_hz * t)


def test_butterworth_is_zero_phase_keeps_slow_and_kills_fast() -> None:
    _, slow = _sine(0.5)
    _, fast = _sine(15.0)
    out = smooth.butterworth(np.stack([slow + 0.3 * fast], axis=-1), FPS, cutoff_hz=3.0)[:, 0]
    middle = slice(60, -60)  # away from the edge padding
    # No lag and no loss: the filtered signal lies on the slow sine, sample by sample,
    # and what is left of the 0.3-amplitude fast sine is under 1 % of it.
    np.testing.assert_allclose(out[middle], slow[middle], atol=5e-3)
    assert np.std(out[middle] - slow[middle]) < 0.01 * 0.3
    # A causal (one-pass) filter would lag: check that the forward-backward one does not.
    lag = np.argmax(np.correlate(out[middle], slow[middle], mode="full")) - (len(slow[middle]) - 1)
    assert lag == 0


def test_butterworth_handles_clips_shorter_than_its_padding() -> None:
    x = np.linspace(0.0, 1.0, 8)[:, None]
    out = smooth.butterworth(x, FPS, cutoff_hz=5.0)
    assert out.shape == x.shape
    assert np.all(np.isfinite(out))
    assert smooth.butterworth(x[:1], FPS, cutoff_hz=5.0).shape == (1, 1)


def test_savgol_keeps_cubics_and_reduces_noise() -> None:
    t = np.linspace(-1.0, 1.0, 121)
    cubic = (2.0 * t**3 - t + 0.3)[:, None]
    np.testing.assert_allclose(
        smooth.savgol(cubic, FPS, window_s=0.2, polyorder=3), cubic, atol=1e-12
    )
    noise = np.random.default_rng(1).normal(scale=0.01, size=(600, 3))
    assert np.std(smooth.savgol(noise, FPS, window_s=0.3)) < 0.5 * np.std(noise)
    assert smooth.savgol(cubic[:3], FPS).shape == (3, 1)  # shorter than any window: copied


@pytest.mark.parametrize("freq_hz", [0.9, 1.7, 4.0])
def test_dominant_frequency_finds_the_main_sine(freq_hz: float) -> None:
    t, main = _sine(freq_hz, seconds=8.0)
    rng = np.random.default_rng(2)
    x = np.stack([main + 0.2 * np.sin(2 * np.pi * 7.3 * t), 0.5 * main + 0.05 * t], axis=-1)
    x = x + rng.normal(scale=0.05, size=x.shape)
    assert smooth.dominant_frequency(x, FPS) == pytest.approx(freq_hz, abs=1.0 / 8.0)
    assert np.isnan(smooth.dominant_frequency(x[:3], FPS))


def test_quaternion_smoothing_ignores_sign_flips_and_stays_unit() -> None:
    t = np.arange(240) / FPS
    rng = np.random.default_rng(3)
    angle = 1.5 * np.sin(2 * np.pi * 0.7 * t) + rng.normal(scale=0.02, size=t.shape)
    q = quat.from_axis_angle(np.array([0.0, 0.6, 0.8]), angle)[:, None, :]
    flipped = q * np.where(rng.random((240, 1, 1)) < 0.3, -1.0, 1.0)

    def filt(x: np.ndarray) -> np.ndarray:
        return smooth.butterworth(x, FPS, cutoff_hz=3.0)

    a, b = smooth.quaternions(q, filt), smooth.quaternions(flipped, filt)
    np.testing.assert_allclose(quat.angle_between(a, b), 0.0, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(a, axis=-1), 1.0, atol=1e-12)
    clean = quat.from_axis_angle(np.array([0.0, 0.6, 0.8]), 1.5 * np.sin(2 * np.pi * 0.7 * t))
    assert np.mean(quat.angle_between(a[:, 0], clean)) < np.mean(quat.angle_between(q[:, 0], clean))


def test_motion_butterworth_uses_a_multiple_of_the_dominant_frequency() -> None:
    t = np.arange(480) / FPS
    angle = 0.8 * np.sin(2 * np.pi * 1.25 * t)
    swing = quat.from_axis_angle([1.0, 0, 0], angle)
    rotations = np.stack([quat.identity((480,)), swing, quat.identity((480,))], axis=1)
    offsets = np.array([[0.0, 0.0, 0.0], [0.0, -0.1, 0.0], [0.0, -0.4, 0.0]])
    translations = np.repeat(offsets[None], 480, axis=0)
    skeleton = Skeleton(
        names=("root", "swing", "swing_End"),
        parents=np.array([-1, 0, 1]),
        offsets=offsets,
        channels=(("Xrotation",), ("Xrotation",), ()),
        kinds=("ROOT", "JOINT", "End Site"),
    )
    clip = Clip(skeleton=skeleton, rotations=rotations, translations=translations, fps=FPS)
    out, cutoff = smooth.motion(clip, "butterworth")
    # The swinging end's speed peaks twice per swing: 2.5 Hz; cutoff 2.5 x that.
    assert cutoff == pytest.approx(2.5 * 2.5, abs=2.5 / 8.0)
    np.testing.assert_allclose(out.translations, translations, atol=1e-12)
    assert np.max(quat.angle_between(out.rotations, rotations)[60:-60]) < 0.01
    sg, nan = smooth.motion(clip, "savgol")
    assert np.isnan(nan)
    assert sg.rotations.shape == rotations.shape
