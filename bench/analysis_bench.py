"""Speed of the phase and momentum analysis (medians of repeated runs).

1. MTP detection at given α/θ over a 10,000-frame clip (target < 5 ms): ours
   (:func:`motioncore.analysis.mtp.detect`, all four conditions of seed 000 §3.1, the
   direction tested against a per-frame target) against the seed's own listing
   (§5.1 ``detect_mtp``, reproduced below as the reference: a Savitzky-Golay
   filter, ``find_peaks`` against the global maximum, then a Python loop after
   each peak; it tests fewer conditions, so it is a floor to compare with, not
   an equal).
2. The α/θ recompute the API does (:func:`motioncore.analysis.analyze`, MTP +
   units + phases + cut points) on the same 10,000 frames.
3. The whole analysis stage on a one-minute 120 Hz clip (target < 1 s):
   :func:`motioncore.analysis.features` (FK, momentum curves, contacts, gait) +
   :func:`~motioncore.analysis.analyze` + the two artifacts' serialisation
   (``.npz`` and JSON), as :func:`webapp.clips.stages.analyze_stage` runs them.

The clips are real: CMU 131_02 (120 Hz, tests/data) repeated end to end until
long enough (each repetition continues from where the root stopped, so the
motion has no jump).

    python bench/analysis_bench.py [--repeat 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.signal import find_peaks, savgol_filter

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from motioncore import analysis, bvh  # noqa: E402
from motioncore.analysis import mtp  # noqa: E402
from motioncore.clip import Clip  # noqa: E402

BASE = REPO_ROOT / "tests" / "data" / "cmu-bvh11" / "131_02.bvh"
MTP_FRAMES = 10_000
STAGE_SECONDS = 60.0
MTP_TARGET_MS = 5.0
STAGE_TARGET_S = 1.0


def seed_listing_detect_mtp(
    t: np.ndarray,
    v: np.ndarray,
    alpha: float = 0.6,
    theta_max_deg: float = 75.0,
    v_next_dir: np.ndarray | None = None,
) -> list[int]:
    """Seed 000 §5.1's ``detect_mtp`` (the reference sketch), as printed there."""
    v = np.atleast_2d(v)
    if v.shape[0] == 1:
        v = v.T
    if v.shape[1] == 1:
        v_smooth = savgol_filter(v[:, 0], window_length=11, polyorder=3)[:, None]
    else:
        v_smooth = np.column_stack(
            [savgol_filter(v[:, d], window_length=11, polyorder=3) for d in range(v.shape[1])]
        )
    speed = np.linalg.norm(v_smooth, axis=1)
    acc = np.gradient(v_smooth, t, axis=0)
    acc_along_v = np.sum(acc * v_smooth, axis=1) / (speed + 1e-9)
    peaks, _ = find_peaks(speed, height=alpha * speed.max())
    candidates = []
    for p in peaks:
        v_peak = speed[p]
        for i in range(p + 1, len(t)):
            if speed[i] < alpha * v_peak:
                break
            if acc_along_v[i] < 0:
                if v_next_dir is not None:
                    cos_theta = np.dot(v_smooth[i], v_next_dir) / (
                        speed[i] * np.linalg.norm(v_next_dir) + 1e-9
                    )
                    theta = np.degrees(np.arccos(np.clip(cos_theta, -1, 1)))
                    if theta > theta_max_deg:
                        continue
                candidates.append((i, speed[i]))
                break
    candidates.sort(key=lambda x: -x[1])
    return [c[0] for c in candidates]


def repeated(clip: Clip, frames: int) -> Clip:
    """``clip`` played again and again, each time from where the root stopped, cut to ``frames``."""
    times = -(-frames // clip.num_frames)
    roots = clip.skeleton.roots
    rot = np.concatenate([clip.rotations] * times)[:frames]
    trans = []
    shift = np.zeros(3)
    for _ in range(times):
        piece = clip.translations.copy()
        piece[:, roots, 0] += shift[0]
        piece[:, roots, 2] += shift[2]
        trans.append(piece)
        shift += clip.translations[-1, roots[0]] - clip.translations[0, roots[0]]
    return clip.with_arrays(rotations=rot, translations=np.concatenate(trans)[:frames])


def median_ms(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Median and minimum wall time of ``fn`` in milliseconds (one warm-up call)."""
    fn()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000.0)
    return statistics.median(samples), min(samples)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)

    base = bvh.load(BASE)
    long_clip = repeated(base, MTP_FRAMES)
    feats = analysis.features(long_clip)
    curve = feats.speed
    velocity = feats.com_velocity
    next_feats = analysis.features(base)
    local = next_feats.initial_velocity_local()
    c, s = np.cos(feats.heading), np.sin(feats.heading)
    per_frame = np.stack(
        [c * local[0] + s * local[2], np.full_like(c, local[1]), c * local[2] - s * local[0]],
        axis=-1,
    )
    t = np.arange(curve.shape[0]) / feats.fps

    print(f"MTP over {curve.shape[0]} frames ({feats.fps:g} Hz, CMU 131_02 repeated), α 0.6, θ 75°")
    ours_ms, ours_min = median_ms(
        lambda: mtp.detect(
            curve, velocity, feats.fps, alpha=0.6, theta_max_deg=75.0, next_velocity=per_frame
        ),
        args.repeat,
    )
    listing_ms, listing_min = median_ms(
        lambda: seed_listing_detect_mtp(t, velocity, 0.6, 75.0, per_frame[0]), args.repeat
    )
    recompute_ms, recompute_min = median_ms(
        lambda: analysis.analyze(feats, alpha=0.6, theta_max_deg=75.0, next_features=next_feats),
        args.repeat,
    )
    rows = [
        ("mtp.detect (4 conditions, per-frame θ)", ours_ms, ours_min),
        ("seed §5.1 listing (reference sketch)", listing_ms, listing_min),
        ("analysis.analyze (MTP + units + phases + cuts)", recompute_ms, recompute_min),
    ]
    print("| what | median ms | min ms | × seed listing |")
    print("|---|---:|---:|---:|")
    for name, median, least in rows:
        print(f"| {name} | {median:.3f} | {least:.3f} | {median / listing_ms:.2f} |")

    stage_clip = repeated(base, round(STAGE_SECONDS * base.fps))

    def stage() -> None:
        f = analysis.features(stage_clip)
        f.to_npz()
        json.dumps(analysis.analyze(f).as_dict())

    stage_repeat = max(3, args.repeat // 3)
    stage_ms, stage_min = median_ms(stage, stage_repeat)
    feat_ms, _ = median_ms(lambda: analysis.features(stage_clip), stage_repeat)
    print(f"\nAnalysis stage, {stage_clip.num_frames} frames at {base.fps:g} Hz:")
    print(f"  features {feat_ms:.0f} ms; features + analyze + npz + JSON: ", end="")
    print(f"median {stage_ms:.0f} ms, min {stage_min:.0f} ms")
    ok_mtp = ours_ms < MTP_TARGET_MS
    ok_stage = stage_ms < STAGE_TARGET_S * 1000.0
    verdict = {True: "PASS", False: "FAIL"}
    print(
        f"{verdict[ok_mtp]}  MTP detection on {MTP_FRAMES} frames < {MTP_TARGET_MS:g} ms "
        f"(median {ours_ms:.2f} ms)"
    )
    print(
        f"{verdict[ok_stage]}  analysis stage of a 1-minute 120 Hz clip < {STAGE_TARGET_S:g} s "
        f"(median {stage_ms / 1000:.3f} s)"
    )
    return 0 if ok_mtp and ok_stage else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
