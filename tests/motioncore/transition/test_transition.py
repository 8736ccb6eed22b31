"""Transition planning on synthetic clips with known speed profiles, and on real walks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from motioncore import bvh, fk, transition
from motioncore.analysis import momentum, mtp
from motioncore.clip import Clip, Skeleton
from motioncore.errors import MotionCoreError
from motioncore.transition import blend, engine
from motioncore.transition import entry as entry_mod
from support.paths import SAMPLE_DIR
from support.straight_motion import FPS, SKELETON, ramp, rigid, sine_bell

METRIC_KEYS = {
    "velocity_continuity",
    "momentum_retention",
    "energy_loss",
    "foot_slide_mps",
    "pose_discontinuity_m",
    "max_joint_acceleration_m_per_s2",
    "cut_frame",
    "entry_frame",
    "unmeasured",
}


def test_baseline_cuts_are_where_their_formulas_put_them() -> None:
    a, b = sine_bell(), ramp()
    speed = momentum.measure(a).speed
    end = transition.plan(a, b, method="end")
    fixed = transition.plan(a, b, method="fixed70")
    threshold = transition.plan(a, b, method="threshold")
    assert end.cut.frame == 120 and end.cut.reason is None
    assert fixed.cut.frame == 84 and fixed.cut.time_s == pytest.approx(1.4)
    peak = int(np.argmax(speed))
    assert peak == 60
    expected = peak + 1 + int(np.flatnonzero(speed[peak + 1 :] < 0.5 * speed[peak])[0])
    assert threshold.cut.frame == expected
    assert abs(expected - 101) <= 1  # sin(π f / 120) < 0.5 from f > 100
    lower = transition.plan(a, b, method="threshold", threshold_ratio=0.3)
    assert lower.cut.frame > threshold.cut.frame


def test_mtp_cut_is_the_candidate_b_continues_best() -> None:
    """A: a sine bell peaking at 1.5 m/s; B walks at a steady 1.2 m/s in the same pose.
    Every MTP candidate keeps ≥ α of the peak; B continues best where A slows through
    1.2 m/s: 1.5 sin(π f / 120) = 1.2 on the falling side, f = 120 (1 - asin(0.8) / π)."""
    a, b = sine_bell(), rigid(1.2 * np.arange(121) / FPS)
    planned = transition.plan(a, b, method="mtp")
    m = momentum.measure(a)
    undirected = mtp.detect(m.speed, m.com_velocity, FPS)
    candidates = undirected.order
    expected = int(candidates[np.argmin(np.abs(m.speed[candidates] - 1.2))])
    assert planned.cut.frame == expected
    assert abs(expected - 120 * (1 - np.arcsin(0.8) / np.pi)) <= 1.0
    assert planned.candidates == candidates.size
    assert planned.cut.reason is None and planned.recommendation is None
    # The direction test at the chosen entry passes at the cut (B moves like A).
    nxt = np.broadcast_to(momentum.measure(b).com_velocity[planned.entry.frame], (121, 3))
    directed = mtp.detect(m.speed, m.com_velocity, FPS, next_velocity=nxt)
    assert planned.cut.frame in directed.order
    assert planned.cut.breakdown["direction"]["skipped"] is False
    assert planned.cut.breakdown["direction"]["passed"]
    assert planned.entry.velocity_m_per_s == pytest.approx(abs(m.speed[expected] - 1.2), abs=0.02)


def test_best_entry_matches_pose_velocity_and_phase() -> None:
    still = np.zeros(61)
    a = rigid(still, knee_rad=0.3)
    b = rigid(still, knee_rad=np.arange(61) * 0.01)
    found = entry_mod.best_entry(a, 20, b)
    assert found.frame == 30 and found.pose_m < 1e-3 and found.phase_rad is None
    # B's first 0.2 s all move (the knee bends) while A stands: no entry there keeps the
    # velocity continuous, so the search widens to B's first half and finds the match.
    narrow = entry_mod.best_entry(a, 20, b, search_s=0.2)
    assert narrow.widened and narrow.frame == 30 and narrow.searched_frames == 31
    assert not found.widened and found.searched_frames == 61
    # A still B: every entry is continuous, the window is kept and pose decides.
    held = rigid(still, knee_rad=0.6)
    bent = fk.positions(held)[12] - fk.positions(a)[20]
    rms = np.sqrt(np.mean(np.sum(bent**2, axis=-1)))
    kept = entry_mod.best_entry(a, 20, held, search_s=0.2)
    assert not kept.widened and kept.searched_frames == 13
    assert kept.pose_m == pytest.approx(rms, abs=1e-12)
    # identical poses and velocities: only the phase decides (wrapping across ±π)
    flat = rigid(still)
    phase_b = np.linspace(-np.pi, np.pi, 61)
    by_phase = entry_mod.best_entry(flat, 5, flat, phase_a=np.full(61, 3.0), phase_b=phase_b)
    assert by_phase.frame == int(np.argmin(np.abs(np.angle(np.exp(1j * (3.0 - phase_b))))))
    assert by_phase.phase_rad == pytest.approx(abs(3.0 - phase_b[by_phase.frame]))
    undefined = entry_mod.best_entry(flat, 5, flat, phase_a=np.full(61, np.nan), phase_b=phase_b)
    assert undefined.phase_rad is None
    assert undefined.frame == entry_mod.best_entry(flat, 5, flat).frame
    with pytest.raises(MotionCoreError, match="phase_b"):
        entry_mod.best_entry(flat, 5, flat, phase_a=np.zeros(61), phase_b=np.zeros(3))


def test_the_entry_search_widens_to_b_s_first_half_for_a_continuous_velocity() -> None:
    t = np.arange(361) / FPS
    walking = rigid(1.2 * t)  # A walks at 1.2 m/s
    # B stands for 2 s, then walks at 1.2 m/s: its first second has no continuous entry.
    b = rigid(np.where(t < 2.0, 0.0, 1.2 * (t - 2.0)))
    found = entry_mod.best_entry(walking, 100, b)
    assert found.widened and found.continuity < entry_mod.CONTINUITY_LIMIT
    assert 2.0 < found.time_s <= 3.0  # in its walk, within its first half
    # B that stands throughout: nothing is continuous, the least cost of the half is kept.
    standing = entry_mod.best_entry(walking, 100, rigid(np.zeros(361)))
    assert standing.widened and standing.continuity > 1.0
    assert standing.searched_frames == 181


def test_the_search_reports_the_next_best_pair_apart_from_the_chosen_one() -> None:
    a, b = sine_bell(), ramp()
    fa, fb = entry_mod.features(a), entry_mod.features(b)
    choice = entry_mod.search(fa, np.arange(40, 90), fb, 1.0)
    assert choice is not None and choice.next_best is not None
    cut, entry = choice.next_best
    apart = round(entry_mod.NEXT_BEST_APART_S * FPS)
    assert abs(cut - choice.cut) >= apart or abs(entry.frame - choice.entry.frame) >= apart
    assert entry.total >= choice.entry.total
    assert entry_mod.search(fa, [60], fb, 1.0, allowed=lambda t: t.total < 0) is None


@pytest.mark.parametrize("blend_kind", ["crossfade", "inertialize"])
def test_metrics_equal_hand_computations(blend_kind: blend.Method) -> None:
    a = sine_bell()
    b = ramp(knee_rad=0.4)
    planned = transition.plan(a, b, method="fixed70", blend=blend_kind)
    out, res = planned.clip, planned.result
    cut, entry = planned.cut.frame, planned.entry.frame
    assert (res.blend_start, res.blend_stop) == (cut, cut + 7)  # round(0.12 s · 60 Hz)
    ma, mo = momentum.measure(a), momentum.measure(out)
    v_before, v_after = ma.com_velocity[cut], mo.com_velocity[res.blend_stop]
    nb, na = np.linalg.norm(v_before), np.linalg.norm(v_after)
    peak = 60  # A's fastest frame: the reference of every method
    switch = slice(cut, res.blend_stop + 1)
    got = planned.metrics
    v_join = momentum.measure(b).com_velocity[entry]  # B is aligned by a pure translation
    nj = np.linalg.norm(v_join)
    assert got.velocity_continuity == pytest.approx(
        np.linalg.norm(v_join - v_before) / max(0.5 * (nb + nj), 0.05), rel=1e-9
    )
    assert got.momentum_retention == pytest.approx(
        mo.speed[switch].min() / ma.speed[peak], rel=1e-9
    )
    e_peak = ma.kinetic_energy[peak]
    assert got.energy_loss == pytest.approx(
        (e_peak - mo.kinetic_energy[switch].min()) / e_peak, rel=1e-9
    )
    pa, pb = fk.positions(a)[cut], fk.positions(b)[entry]
    offset = (pb - pb[0] * [1, 0, 1]) - (pa - pa[0] * [1, 0, 1])
    assert got.pose_discontinuity_m == pytest.approx(
        np.sqrt(np.mean(np.sum(offset**2, axis=-1))), rel=1e-9
    )
    assert got.pose_discontinuity_m > 0.05  # the bent knee
    p = fk.positions(out)
    frames = np.arange(cut, cut + 8)
    second = p[frames + 1] - 2 * p[frames] + p[frames - 1]
    assert got.max_joint_acceleration_m_per_s2 == pytest.approx(
        np.linalg.norm(second, axis=-1).max() * FPS**2, rel=1e-9
    )
    assert (got.cut_frame, got.entry_frame) == (cut, entry)
    state = planned.state.as_dict()
    assert state["peak_frame"] == peak and state["after_frame"] == res.blend_stop
    assert state["speed_after_m_per_s"] == pytest.approx(na)
    json.dumps(planned.as_dict())


def test_a_reversal_falls_back_to_the_end_and_recommends_a_transition() -> None:
    a = sine_bell()
    backwards = rigid(-1.0 * np.arange(121) / FPS)  # B steps backwards at 1 m/s from the start
    comparison = transition.compare(
        a,
        backwards,
        alpha=0.6,
        theta_max_deg=75.0,
        measure="speed",
        blend_s=0.12,
        blend="crossfade",
    )
    chosen = comparison.chosen
    assert chosen.cut.frame == 120 and "theta_max" in str(chosen.cut.reason)
    assert chosen.recommendation == mtp.REVERSAL_ADVICE
    assert comparison.as_dict()["recommendation"] == mtp.REVERSAL_ADVICE
    fixed = comparison.transitions["fixed70"]
    assert fixed.state.angle_deg == pytest.approx(180.0, abs=1e-6)
    assert fixed.recommendation == mtp.REVERSAL_ADVICE
    forwards = transition.compare(a, ramp())
    assert forwards.as_dict()["recommendation"] is None


def test_compare_json_has_exactly_the_documented_keys() -> None:
    comparison = transition.compare(sine_bell(), ramp(), blend="inertialize")
    report = json.loads(json.dumps(comparison.as_dict()))
    assert set(report) == {
        "cut",
        "entry",
        "next_best",
        "verdict",
        "blend_s",
        "blend",
        "blending",
        "blend_request",
        "metrics",
        "methods",
        "engine",
        "recommendation",
        "alpha",
        "theta_max_deg",
        "measure",
        "leading_frames_dropped",
    }
    assert report["leading_frames_dropped"] == {"a": 0, "b": 0}
    assert set(report["cut"]) == {"frame", "time_s", "method", "reason", "breakdown"}
    assert set(report["methods"]) == {"mtp", "end", "fixed70", "threshold"}
    layout_keys = {"method", "frames", "cut_frame", "entry_frame", "blend_start_frame"}
    for method, detail in report["methods"].items():
        assert set(detail) == {
            "cut",
            "entry",
            "next_best",
            "blend_s",
            "blend",
            "blending",
            "layout",
            "recommendation",
        }
        assert set(detail["blending"]) == {
            "method",
            "blend_s",
            "reason",
            "automatic_method",
            "automatic_length",
        }
        assert detail["cut"]["method"] == method
        assert layout_keys | {"blend_stop_frame", "alignment"} == set(detail["layout"])
        assert detail["layout"]["frames"] == comparison.transitions[method].clip.num_frames
        assert detail["layout"]["cut_frame"] == report["metrics"][method]["cut_frame"]
    assert report["methods"]["mtp"]["cut"] == report["cut"]
    assert report["cut"]["method"] == "mtp"
    assert set(report["entry"]) == {"frame", "time_s", "cost", "searched_frames", "widened"}
    assert set(report["entry"]["cost"]) == {
        "total",
        "pose_m",
        "velocity_m_per_s",
        "phase_rad",
        "continuity",
    }
    if report["next_best"] is not None:
        assert set(report["next_best"]) == {"cut", "entry"}
        assert set(report["next_best"]["cut"]) == {"frame", "time_s"}
    assert set(report["metrics"]) == {"mtp", "end", "fixed70", "threshold"}
    assert all(set(m) == METRIC_KEYS for m in report["metrics"].values())
    assert report["blend"] == "inertialize" and report["measure"] == "speed"
    cut, entry = report["cut"]["frame"], report["entry"]["frame"]
    assert report["blend_request"] == {
        "blend": "inertialize",
        "blend_s": None,
        "blend_min_s": 0.1,
        "blend_max_s": 0.5,
    }
    assert report["engine"] == engine.parameters(cut, 121, entry, 121, FPS, report["blend_s"])
    assert (
        comparison.transitions["end"].clip.num_frames
        == 120 + 121 - report["metrics"]["end"]["entry_frame"]
    )


def test_a_leading_bind_pose_is_dropped_before_the_cut_is_chosen() -> None:
    """An iClone-style take: a T-pose frame 2 m from where the take starts. Kept, its
    jump would be A's peak (120 m/s here) and every cut would be judged against it."""
    a, b = sine_bell(), ramp()
    bind = a.translations[:1].copy()
    bind[0, 0] += np.array([2.0, 0.0, 0.0])
    with_bind = a.with_arrays(
        np.concatenate([a.rotations[:1], a.rotations]), np.concatenate([bind, a.translations])
    )
    plain, trimmed = transition.compare(a, b), transition.compare(with_bind, b)
    assert trimmed.as_dict()["leading_frames_dropped"] == {"a": 1, "b": 0}
    assert trimmed.as_dict()["metrics"] == plain.as_dict()["metrics"]
    assert trimmed.chosen.state.peak_speed_m_per_s < 2.0


def test_retention_and_energy_loss_are_unmeasured_when_a_never_moves() -> None:
    """An idle A (a 5 cm/s sway) into a walk: no momentum to keep, so no ratio to it."""
    t = np.arange(121) / FPS
    idle = rigid(0.002 * np.sin(2 * np.pi * t * 0.5) * 4)
    got = transition.compare(idle, ramp())
    for method, metrics in got.as_dict()["metrics"].items():
        assert metrics["momentum_retention"] is None and metrics["energy_loss"] is None, method
        assert "never builds momentum" in metrics["unmeasured"]
    assert all(
        m["unmeasured"] is None
        for m in transition.compare(sine_bell(), ramp()).as_dict()["metrics"].values()
    )


def test_b_at_another_frame_rate_is_resampled_and_bad_input_is_rejected() -> None:
    a = sine_bell()
    slow = rigid(0.5 * (np.arange(41) / 20.0) ** 2 * 2.0, fps=20.0)
    planned = transition.plan(a, slow, method="fixed70", phase_b=np.zeros(41))
    assert planned.clip.fps == FPS
    assert planned.clip.num_frames == 84 + 121 - planned.entry.frame  # 2 s of B at 60 Hz
    with pytest.raises(MotionCoreError, match="cut method"):
        transition.plan(a, a, method="halfway")  # type: ignore[arg-type]
    with pytest.raises(MotionCoreError, match="measure"):
        transition.plan(a, a, measure="jerk")  # type: ignore[arg-type]
    with pytest.raises(MotionCoreError, match="blend"):
        transition.plan(a, a, blend="morph")  # type: ignore[arg-type]
    other = Clip(SKELETON, a.rotations[:, ::-1], a.translations, FPS)
    renamed = Clip(
        Skeleton(
            ("Pelvis", *SKELETON.names[1:]),
            SKELETON.parents,
            SKELETON.offsets,
            SKELETON.channels,
            SKELETON.kinds,
        ),
        other.rotations,
        other.translations,
        FPS,
    )
    with pytest.raises(MotionCoreError, match="different skeletons"):
        transition.compare(a, renamed)


def test_real_walk_that_ends_at_rest_mtp_keeps_more_momentum_than_the_end() -> None:
    """CMU 131_02 (start, walk, stop; 10.4 s at 120 Hz) into itself."""
    walk = bvh.load(SAMPLE_DIR / "cmu-bvh11" / "131_02.bvh")
    assert momentum.measure(walk).speed[-1] < 0.1  # A ends at rest
    comparison = transition.compare(
        walk, walk, alpha=0.6, theta_max_deg=75.0, measure="speed", blend_s=0.12, blend="crossfade"
    )
    report = json.loads(json.dumps(comparison.as_dict()))
    metrics = report["metrics"]
    assert all(set(m) == METRIC_KEYS for m in metrics.values())
    assert report["cut"]["reason"] is None
    assert metrics["end"]["cut_frame"] == walk.num_frames - 1
    # Observed: MTP cuts at 706 (retention 0.62), the end at 1246 (0.26).
    assert metrics["mtp"]["momentum_retention"] > metrics["end"]["momentum_retention"]
    assert metrics["mtp"]["pose_discontinuity_m"] < metrics["end"]["pose_discontinuity_m"]
    assert (
        bvh.load(bvh.dump(comparison.chosen.clip)).num_frames == comparison.chosen.clip.num_frames
    )


def test_real_clips_at_different_rates_compare() -> None:
    """Xia 'angry' walk (120 Hz) into the deep-motion-editing demo (30 Hz), same CMU rig."""
    a = bvh.load(SAMPLE_DIR / "deep-motion-editing" / "xia_angry_13_000.bvh")
    b = bvh.load(SAMPLE_DIR / "deep-motion-editing" / "demo_3d_1_fixed.bvh")
    for kind in ("crossfade", "inertialize"):
        comparison = transition.compare(a, b, blend=kind)  # type: ignore[arg-type]
        assert comparison.chosen.clip.fps == a.fps
        report = comparison.as_dict()
        assert report["entry"]["time_s"] <= 1.0 + 1e-9
        for values in report["metrics"].values():
            assert np.isfinite(values["velocity_continuity"])


def _two_bells(strong: float = 2.0, weak: float = 0.8, frames: int = 121) -> Clip:
    """A strong bell (peak ``strong`` m/s) then a weaker one (``weak``), rest between."""
    t = np.arange(frames) / FPS
    duration = t[-1]
    bell = (1.0 - np.cos(np.pi * t / duration)) * duration / np.pi
    first = strong * bell
    second = first[-1] + weak * bell[1:]
    return rigid(np.concatenate([first, second]))


def test_a_weaker_unit_is_cut_only_where_the_strong_one_cannot_be_continued() -> None:
    """A: a 2 m/s bell then a 0.8 m/s one. Into B walking at 0.6 m/s no frame keeping α
    of the strong peak (≥ 1.2 m/s) continues under 0.15, so the cut is in the weaker
    unit where A slows through 0.6 m/s (§6.2: MTP per motion unit); into B at 1.4 m/s
    the strong unit continues, and stays the cut."""
    a = _two_bells()
    m = momentum.measure(a)
    slow = transition.plan(a, rigid(0.6 * np.arange(121) / FPS), method="mtp")
    assert slow.cut.frame > 121 and slow.cut.reason is None
    assert m.speed[slow.cut.frame] == pytest.approx(0.6, abs=0.05)
    assert slow.entry.continuity < entry_mod.CONTINUITY_LIMIT
    fast = transition.plan(a, rigid(1.4 * np.arange(121) / FPS), method="mtp")
    assert fast.cut.frame < 121
    assert m.speed[fast.cut.frame] == pytest.approx(1.4, abs=0.05)
