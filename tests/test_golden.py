"""The command line's JSON for a fixed list of samples equals what was kept in
``tests/golden/`` (see :mod:`support.golden`, numbers to within its tolerance): a
refactoring changes no output."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import bvh, quat
from support import golden
from support.paths import SAMPLE_DIR


@pytest.mark.parametrize("name", sorted(golden.CASES))
def test_output_equals_the_golden_one(name: str) -> None:
    assert golden.golden_path(name).is_file(), f"write it: python {golden.__file__} --write"
    differences = golden.same(golden.run_case(name), golden.read(name))
    assert not differences, "\n".join(differences[:20])


def test_the_comparison_catches_a_change_and_not_the_last_digits() -> None:
    kept = {"a": [1.0, 2.5e-3, "x"], "b": {"c": 3, "near_zero": -5.9e-16}}
    noisy = {"a": [1.0 + 1e-12, 2.5e-3 * (1 + 1e-9), "x"], "b": {"c": 3, "near_zero": -5.4e-16}}
    assert golden.same(noisy, kept) == []
    assert golden.same({**noisy, "a": [1.001, 2.5e-3, "x"]}, kept) == ["/a[0]: 1.001 != 1.0"]
    assert golden.same({**noisy, "b": {"c": 4, "near_zero": 0.0}}, kept) == ["/b/c: 4 != 3"]
    assert golden.same({"a": kept["a"]}, kept) == [": keys ['b'] differ"]


def test_a_bvh_digest_keeps_the_motion_not_its_euler_spelling() -> None:
    clip = bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh")
    kept = golden.bvh_digest(bvh.dump(clip))
    # the same rotations give other Euler angles near ±180°: noise of 1e-9 in the
    # quaternions is not a change of output
    noise = np.random.default_rng(0).normal(0.0, 1e-9, clip.rotations.shape)
    jittered = clip.with_arrays(quat.normalize(clip.rotations + noise), clip.translations)
    assert golden.same(golden.bvh_digest(bvh.dump(jittered)), kept) == []
    # a knee bent 1° more is
    bent = clip.rotations.copy()
    knee = clip.skeleton.names.index("lKnee")
    bent[:, knee] = quat.mul(bent[:, knee], quat.from_axis_angle([1.0, 0.0, 0.0], np.radians(1.0)))
    changed = golden.same(
        golden.bvh_digest(bvh.dump(clip.with_arrays(bent, clip.translations))), kept
    )
    assert changed and all("_position_m" in d for d in changed)
