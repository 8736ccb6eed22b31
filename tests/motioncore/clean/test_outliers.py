"""3-sigma outlier detection and linear-interpolation repair."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from motioncore import quat
from motioncore.clean import outliers
from motioncore.clip import Clip, Skeleton


def test_a_spike_is_found_and_repaired() -> None:
    t = np.arange(300) / 60.0
    x = np.stack([np.sin(2 * np.pi * 0.8 * t), 0.3 * np.cos(2 * np.pi * 1.1 * t)], axis=-1)
    spiky = x.copy()
    spiky[137, 0] += 0.5
    spiky[200:202, 1] -= 0.4  # a two-frame glitch
    mask = outliers.detect(spiky[..., None], min_step=0.01)
    assert np.flatnonzero(mask[:, 0]).tolist() == [137]
    assert np.flatnonzero(mask[:, 1]).tolist() == [200, 201]
    fixed = outliers.repair(spiky, mask)
    np.testing.assert_allclose(fixed, x, atol=5e-3)
    assert spiky[137, 0] == x[137, 0] + 0.5  # input untouched


def test_fast_smooth_motion_and_lone_jumps_are_not_outliers() -> None:
    t = np.arange(400) / 30.0
    # A fast, non-sinusoidal swing at 30 fps: sharp extremes, no glitch.
    swing = np.sin(2 * np.pi * 1.3 * t) ** 7 + 0.3 * np.sin(2 * np.pi * 2.6 * t)
    assert not outliers.detect(swing[:, None, None]).any()
    # A T-pose frame glued to the start is one jump with no way back: left alone.
    cut = np.concatenate([[5.0], swing[1:]])
    assert not outliers.detect(cut[:, None]).any()
    # The same jump out and back within a few frames is a glitch.
    glitch = swing.copy()
    glitch[100:103] += 2.0
    assert np.flatnonzero(outliers.detect(glitch[:, None])).tolist() == [100, 101, 102]


def test_repair_holds_the_nearest_good_value_at_the_ends() -> None:
    x = np.array([[9.0], [1.0], [2.0], [3.0], [-9.0]])
    mask = np.array([[True], [False], [False], [False], [True]])
    np.testing.assert_array_equal(outliers.repair(x, mask)[:, 0], [1.0, 1.0, 2.0, 3.0, 3.0])
    everything = np.ones_like(mask)
    np.testing.assert_array_equal(outliers.repair(x, everything), x)


@given(
    st.lists(st.booleans(), min_size=3, max_size=40).filter(lambda m: not all(m)),
    st.floats(-3.0, 3.0),
    st.floats(-3.0, 3.0),
)
def test_repair_reproduces_a_straight_line_between_good_frames(
    masked: list[bool], slope: float, offset: float
) -> None:
    mask = np.array(masked)[:, None]
    line = (slope * np.arange(len(masked)) + offset)[:, None]
    noisy = np.where(mask, 1e3, line)
    fixed = outliers.repair(noisy, mask)
    good = np.flatnonzero(~mask[:, 0])
    inside = slice(good[0], good[-1] + 1)
    np.testing.assert_allclose(fixed[inside], line[inside], atol=1e-9)
    np.testing.assert_array_equal(fixed[~mask[:, 0]], line[~mask[:, 0]])


def test_motion_repairs_one_joint_at_one_frame() -> None:
    frames = 240
    t = np.arange(frames) / 60.0
    angle = 0.6 * np.sin(2 * np.pi * 1.0 * t)
    rotations = np.stack(
        [
            quat.from_axis_angle([0.0, 1.0, 0.0], 0.2 * angle),
            quat.from_axis_angle([1.0, 0, 0], angle),
        ],
        axis=1,
    )
    glitch = rotations.copy()
    glitch[90, 1] = -quat.from_axis_angle([1.0, 0, 0], angle[90] + 0.6)  # sign flipped too
    translations = np.zeros((frames, 2, 3))
    translations[:, 0] = np.stack([0.8 * t, np.full(frames, 0.9), np.zeros(frames)], axis=-1)
    translations[:, 1, 1] = -0.4
    translations[150, 0, 1] += 0.2
    skeleton = Skeleton(
        names=("root", "knee"),
        parents=np.array([-1, 0]),
        offsets=np.array([[0.0, 0.9, 0.0], [0.0, -0.4, 0.0]]),
        channels=(("Xposition", "Yposition", "Zposition", "Xrotation"), ("Xrotation",)),
        kinds=("ROOT", "JOINT"),
    )
    clip = Clip(skeleton=skeleton, rotations=glitch, translations=translations, fps=60.0)
    fixed, mask = outliers.motion(clip)
    assert mask.shape == (frames, 2)
    assert {tuple(p) for p in np.argwhere(mask)} == {(90, 1), (150, 0)}
    assert quat.angle_between(fixed.rotations[90, 1], rotations[90, 1]) < 2e-3
    assert abs(fixed.translations[150, 0, 1] - 0.9) < 1e-9
    np.testing.assert_allclose(
        quat.angle_between(fixed.rotations, rotations)[~mask].max(), 0.0, atol=1e-9
    )
