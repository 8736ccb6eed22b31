"""The cleaning pipeline: report, options, and the corpus acceptance check."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from motioncore import bvh, clean, fk, measures, quat, skeleton
from motioncore.clip import Clip, Skeleton
from motioncore.errors import MotionCoreError
from support.paths import SAMPLE_DIR, shared_data_dir

FPS = 60.0
DATA = shared_data_dir()

NAMES = (
    "Hips", "Spine", "Head",
    "LeftArm", "LeftForeArm", "LeftHand", "RightArm", "RightForeArm", "RightHand",
    "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase",
    "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase",
)  # fmt: skip
PARENTS = np.array([-1, 0, 1, 1, 3, 4, 1, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15])
OFFSETS = np.array(
    [
        [0, 0.9, 0], [0, 0.2, 0], [0, 0.4, 0],
        [0.15, 0.3, 0], [0.28, 0, 0], [0.25, 0, 0], [-0.15, 0.3, 0], [-0.28, 0, 0], [-0.25, 0, 0],
        [0.1, 0, 0], [0, -0.42, 0], [0, -0.42, 0], [0, -0.06, 0.12],
        [-0.1, 0, 0], [0, -0.42, 0], [0, -0.42, 0], [0, -0.06, 0.12],
    ],
    dtype=np.float64,
)  # fmt: skip
LEG_BELOW_HIP = [10, 11, 12, 14, 15, 16]


def _gliding_clip(seconds: float = 2.0) -> Clip:
    """A humanoid whose hips glide at 0.05 m/s over rigid legs, arms swinging."""
    frames = int(seconds * FPS)
    t = np.arange(frames) / FPS
    translations = np.repeat(OFFSETS[None], frames, axis=0)
    translations[:, 0, 2] = 0.05 * t
    rotations = quat.identity((frames, len(NAMES)))
    x = np.array([1.0, 0.0, 0.0])
    for hip, knee, ankle in ((9, 10, 11), (13, 14, 15)):
        rotations[:, hip] = quat.from_axis_angle(x, -0.15)
        rotations[:, knee] = quat.from_axis_angle(x, 0.3)
        rotations[:, ankle] = quat.from_axis_angle(x, -0.15)
    rotations[:, 3] = quat.from_axis_angle([0.0, 0.0, 1.0], -1.2 + 0.3 * np.sin(2 * np.pi * t))
    rotations[120 // 2, 4] = quat.from_axis_angle([0.0, 1.0, 0.0], 0.8)  # a one-frame glitch
    skeleton_ = Skeleton(
        names=NAMES,
        parents=PARENTS,
        offsets=OFFSETS,
        channels=(("Xposition", "Yposition", "Zposition", "Xrotation"),) + (("Xrotation",),) * 16,
        kinds=("ROOT",) + ("JOINT",) * 16,
    )
    return Clip(skeleton_, rotations, translations, FPS)


def test_report_is_json_and_describes_the_run() -> None:
    clip = _gliding_clip()
    calls: list[tuple[float, str]] = []
    out, report = clean.clean(clip, progress=lambda f, s: calls.append((f, s)))
    data = json.loads(json.dumps(report.as_dict()))
    assert data["stages"] == ["outliers", "contacts", "footskate"]
    assert data["fps_in"] == data["fps_out"] == FPS
    assert data["frames_in"] == data["frames_out"] == 120
    assert data["outlier_samples"] == 1  # the forearm glitch
    assert data["contact_frames"] == {"left": 120, "right": 120}
    assert data["contact_segments"] == {"left": [[0, 120]], "right": [[0, 120]]}
    for side in ("left", "right"):
        before = data["measures_before"]["feet"][side]["slide_median_mps"]
        assert before == pytest.approx(0.05, rel=0.05)  # the hips glide at 0.05 m/s
        assert data["measures_after"]["feet"][side]["slide_median_mps"] < 0.01 * before
        assert data["skate_before_mps"][side] == before
    assert data["measures_after"]["penetration_worst_m"] < 0.005
    assert data["floor_m"] == pytest.approx(report.floor_m)
    assert data["parameters"]["speed_threshold_mps"] is None
    assert data["warnings"] == []
    assert 0 < data["frames_changed"] <= 120
    assert data["rms_change_cm"]["non_leg"] > 0.0  # the glitch repair moved the hand
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert out.rotations.shape == clip.rotations.shape


def test_resampling_smoothing_and_switches() -> None:
    clip = _gliding_clip()
    before = clip.rotations.copy()
    out, report = clean.clean(clip, fps=30.0, smooth="butterworth", outliers=False)
    np.testing.assert_array_equal(clip.rotations, before)
    assert out.fps == 30.0 and out.num_frames == report.frames_out == 60
    assert report.stages == ("resample", "smooth", "contacts", "footskate")
    # Arms swing at 1 Hz, so their speed peaks at 2 Hz: the cutoff is 2.5 x 2 Hz.
    assert report.butterworth_cutoff_hz == pytest.approx(2.5 * 2.0, abs=0.5)
    untouched, report = clean.clean(clip, outliers=False, footskate=False)
    np.testing.assert_array_equal(untouched.rotations, clip.rotations)
    assert report.frames_changed == 0 and report.stages == ("contacts",)
    assert report.measures_after == report.measures_before


@pytest.mark.parametrize("bad", [{"fps": 0.0}, {"fps": -30.0}, {"smooth": "gaussian"}])
def test_bad_options_raise_the_library_error(bad: dict[str, object]) -> None:
    with pytest.raises(MotionCoreError):
        clean.clean(_gliding_clip(), **bad)  # type: ignore[arg-type]


def test_a_rig_without_feet_is_reported_not_failed() -> None:
    clip = _gliding_clip()
    keep = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8])
    armless = Skeleton(
        names=tuple(NAMES[i] for i in keep),
        parents=PARENTS[keep],
        offsets=OFFSETS[keep],
        channels=tuple(clip.skeleton.channels[i] for i in keep),
        kinds=tuple(clip.skeleton.kinds[i] for i in keep),
    )
    torso = Clip(armless, clip.rotations[:, keep], clip.translations[:, keep], FPS)
    _, report = clean.clean(torso)
    assert report.contact_frames == {}
    assert any("no foot" in w for w in report.warnings)


# --- corpus acceptance -----------------------------------------------------------------

SLIDES_M_PER_S = 0.02
"""A raw foot "slides" when its median slide while planted is above this (and then must
drop by 70 %); the cleaned median must be under it and the 95th percentile under 0.05."""
MEASURED_S = 0.2
"""A foot is measured when the measures find this much planted time in the raw clip:
a clip whose feet are never still (a walk cycle in place, a 20-frame sprint) has no
stance to grade."""


def _locomotion() -> list[str]:
    if not (DATA / "MANIFEST.csv").is_file():
        return []
    with (DATA / "MANIFEST.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [r["relative_path"] for r in rows if r["category"].startswith("locomotion")]


def _non_foot_rms_cm(clip: Clip, out: Clip) -> float:
    """RMS world displacement (cm) of every joint that is not a leg below the hip
    joint (the leg IK moves knees, ankles and toes; nothing else may move)."""
    roles = skeleton.infer(clip.skeleton)
    tops = {roles.get("left_upper_leg"), roles.get("right_upper_leg")}
    leg = np.zeros(clip.skeleton.num_joints, dtype=bool)
    for j, p in enumerate(clip.skeleton.parents):
        leg[j] = p >= 0 and (int(p) in tops or bool(leg[p]))
    moved = fk.positions(out)[:, ~leg] - fk.positions(clip)[:, ~leg]
    return float(np.sqrt(np.mean(np.sum(moved**2, axis=-1))) * 100.0)


def _clean_one(rel: str) -> list[str]:
    """The acceptance lines for one clip; the failures in words."""
    failures = []
    clip = bvh.load(DATA / rel)
    out, report = clean.clean(clip)
    drop = report.leading_frames_dropped
    raw = clip.with_arrays(clip.rotations[drop:], clip.translations[drop:])
    rms = _non_foot_rms_cm(raw, out)
    if rms >= 1.0:
        failures.append(f"{rel}: non-foot joints moved {rms:.2f} cm RMS")
    before = measures.measure(raw)
    after = measures.measure(out, feet=before.geometry)  # the same heel, before and after
    if after.penetration_worst_m > 0.005:
        failures.append(f"{rel}: a foot point {after.penetration_worst_m * 100:.1f} cm under")
    for foot in before.feet:
        cleaned = after.get(foot.side)
        if foot.planted_frames < MEASURED_S * raw.fps or cleaned is None:
            continue
        b, a, p95 = foot.slide_median_mps, cleaned.slide_median_mps, cleaned.slide_p95_mps
        if a is None or p95 is None or b is None:
            failures.append(f"{rel} {foot.side}: no planted frame after cleaning")
            continue
        if a >= SLIDES_M_PER_S or p95 >= 0.05:
            failures.append(f"{rel} {foot.side}: slide median {a:.3f}, p95 {p95:.3f} m/s")
        if b > SLIDES_M_PER_S and a > 0.3 * b:
            failures.append(f"{rel} {foot.side}: slide {b:.3f} -> {a:.3f} m/s (< 70 % less)")
    return failures


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.skipif(not _locomotion(), reason=f"corpus not found at {DATA}")
def test_corpus_locomotion_after_cleaning_feet_hold_and_the_body_stays() -> None:
    """Every locomotion clip, by the independent measures (:mod:`motioncore.measures`):
    median slide while planted < 0.02 m/s and p95 < 0.05 m/s, at least 70 % less than
    before where the raw foot slides; no foot point under -5 mm; non-leg joints < 1 cm RMS."""
    failures = [line for rel in _locomotion() for line in _clean_one(rel)]
    assert not failures, "\n".join(failures)


def test_a_leading_bind_pose_frame_is_dropped_with_a_warning() -> None:
    """A T-pose at the origin before the take (as iClone's CMU retargets open): the
    root leaves it at an impossible speed, so it is dropped and said so."""
    take = bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh")
    root = int(take.skeleton.roots[0])
    bind_rot = quat.identity((1, take.skeleton.num_joints))
    bind_tr = take.translations[:1].copy()
    bind_tr[0, root] = take.translations[0, root] + np.array([2.0, 0.0, -1.5])
    clip = take.with_arrays(
        np.concatenate([bind_rot, take.rotations]), np.concatenate([bind_tr, take.translations])
    )
    out, report = clean.clean(clip, footskate=False, outliers=False)
    assert (report.frames_in, report.frames_out) == (take.num_frames + 1, take.num_frames)
    assert report.stages[0] == "bind pose"
    assert any("dropped 1 leading frame" in w and "2.50 m" in w for w in report.warnings)
    assert report.leading_frames_dropped == 1
    assert report.start_in_input_s == pytest.approx(1 / take.fps)
    assert report.as_dict()["leading_frames_dropped"] == 1
    np.testing.assert_allclose(fk.positions(out), fk.positions(take), atol=1e-9)
    untouched, plain = clean.clean(take, footskate=False, outliers=False)
    assert plain.frames_out == take.num_frames and "bind pose" not in plain.stages
    assert plain.leading_frames_dropped == 0 and plain.start_in_input_s == 0.0
    _, kept_report = clean.clean(clip, footskate=False, outliers=False, trim_bind_pose=False)
    assert kept_report.frames_out == clip.num_frames and untouched.num_frames == take.num_frames
