"""Tests of motioncore.transition.joint_order: the same rig with its joints in another
order."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import bvh, fk, transition
from motioncore.errors import MotionCoreError
from motioncore.transition import joint_order
from support.paths import SAMPLE_DIR

WALK = SAMPLE_DIR / "games105" / "walk_forward.bvh"
RUN = SAMPLE_DIR / "games105" / "run_forward.bvh"


def test_games105_walk_and_run_are_one_skeleton_in_two_orders() -> None:
    walk, run = bvh.load(WALK), bvh.load(RUN)
    assert walk.skeleton.names != run.skeleton.names
    assert joint_order.mismatch(walk.skeleton, run.skeleton) is None
    ordered = joint_order.reorder_like(run, walk.skeleton)
    assert ordered.skeleton.names == walk.skeleton.names
    np.testing.assert_array_equal(ordered.skeleton.parents, walk.skeleton.parents)
    before = fk.positions(run)
    after = fk.positions(ordered)
    index = [run.skeleton.index(name) for name in ordered.skeleton.names]
    np.testing.assert_allclose(after, before[:, index], atol=1e-12)
    assert bvh.load(bvh.dump(ordered)).skeleton.names == walk.skeleton.names


def test_reordering_a_clip_like_itself_returns_it() -> None:
    walk = bvh.load(WALK)
    assert joint_order.reorder_like(walk, walk.skeleton) is walk


def test_other_rigs_are_refused_with_the_first_difference() -> None:
    walk = bvh.load(WALK)
    cmu = bvh.load(SAMPLE_DIR / "cmu-bvh11" / "131_02.bvh")
    assert "joints against" in (joint_order.mismatch(walk.skeleton, cmu.skeleton) or "")
    with pytest.raises(MotionCoreError, match="different skeletons"):
        joint_order.reorder_like(cmu, walk.skeleton)


def test_a_transition_between_the_two_orders_runs() -> None:
    walk, run = bvh.load(WALK), bvh.load(RUN)
    result = transition.compare(walk, run, alpha=0.6, theta_max_deg=75.0)
    out = result.chosen.clip
    assert out.skeleton.names == walk.skeleton.names
    assert set(result.as_dict()["metrics"]) == {"mtp", "end", "fixed70", "threshold"}
