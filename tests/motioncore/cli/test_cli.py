"""The command line, run as users run it: ``python -m motioncore ...`` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh
from motioncore.clean import resample
from support.paths import REPO_ROOT
from support.straight_motion import FPS, rigid, sine_bell

ROOT = REPO_ROOT


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "motioncore", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_earlier_option_names_still_work_with_a_notice(sample_dir: Path) -> None:
    walk = sample_dir / "games105" / "walk60.bvh"
    old = run("analyze", walk, "--theta", "80", "--method", "energy", "--json", "--no-curves")
    new = run(
        "analyze", walk, "--theta-max-deg", "80", "--measure", "energy", "--json", "--no-curves"
    )
    assert old.returncode == 0 and new.returncode == 0, old.stderr + new.stderr
    assert "--theta is deprecated; use --theta-max-deg" in old.stderr
    assert "--method is deprecated; use --measure" in old.stderr
    assert json.loads(old.stdout) == json.loads(new.stdout)


def test_a_parameter_out_of_its_bounds_is_refused(sample_dir: Path) -> None:
    result = run("analyze", sample_dir / "games105" / "walk60.bvh", "--alpha", "0.01")
    assert result.returncode == 2
    assert "--alpha must be in [0.05, 1]" in result.stderr


def test_validate_a_good_file_exits_0_with_a_report(sample_dir: Path) -> None:
    result = run("validate", sample_dir / "games105" / "walk60.bvh", "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["valid"] is True
    report = payload["report"]
    assert report["frames"] == 182 and report["joints"] == 20
    assert report["conventions"]["unit"]["value"] == "m"
    assert report["conventions"]["up_axis"]["value"] == "Y"
    assert report["roles"]["joints"]["left_foot"] == "lAnkle"
    assert report["rotation_orders"] == {"XYZ": 20}
    assert report["line_endings"] == "CRLF"


def test_validate_a_bad_file_exits_2_with_line_column_and_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bvh"
    bad.write_text(
        "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Yrotation Zrotation\n}\n"
        "MOTION\nFrames: 2\nFrame Time: 0.1\n1 2 3\n1 2 oops\n"
    )
    result = run("validate", bad, "--json")
    assert result.returncode == 2
    error = json.loads(result.stdout)["error"]
    assert (error["line"], error["column"]) == (11, 5)
    assert "oops" in error["message"]


def test_validate_a_missing_file_exits_2(tmp_path: Path) -> None:
    result = run("validate", tmp_path / "nope.bvh", "--json")
    assert result.returncode == 2
    assert "could not be read" in json.loads(result.stdout)["error"]["message"]


def test_info_prints_a_summary(sample_dir: Path) -> None:
    result = run("info", sample_dir / "cmu-pybvh" / "bvh_test1.bvh")
    assert result.returncode == 0, result.stderr
    assert "inch" in result.stdout and "up axis      Z" in result.stdout


def test_clean_writes_a_bvh_in_the_source_layout_and_a_report(
    sample_dir: Path, tmp_path: Path
) -> None:
    source = sample_dir / "games105" / "walk60.bvh"
    out = tmp_path / "clean.bvh"
    result = run("clean", source, "-o", out, "--fps", "30", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["report"]
    assert report["fps_out"] == 30
    cleaned = bvh.load(out)
    original = bvh.load(source)
    assert cleaned.skeleton.channels == original.skeleton.channels
    assert cleaned.source.unit == "m" and cleaned.fps == pytest.approx(30.0)
    assert np.isfinite(cleaned.rotations).all()


METRIC_NAMES = {"velocity_continuity", "momentum_retention", "energy_loss"}


def test_analyze_prints_units_phases_gait_and_candidates(sample_dir: Path) -> None:
    walk = sample_dir / "games105" / "walk60.bvh"
    result = run(
        "analyze", walk, "--alpha", "0.65", "--theta-max-deg", "80", "--measure", "energy", "--json"
    )
    assert result.returncode == 0, result.stderr
    assert "deprecated" not in result.stderr
    body = json.loads(result.stdout)
    assert body["file"] == str(walk)
    assert body["parameters"]["alpha"] == 0.65 and body["parameters"]["measure"] == "energy"
    assert body["units"] and body["phases"]["runs"] and body["gait"]["periodic"] is True
    first = body["candidates"][0]
    assert {"frame", "time_s", "value", "peak_frame", "breakdown"} <= set(first)
    assert first["time_s"] == pytest.approx(first["frame"] / body["fps"])
    assert body["cuts"]["strategy"] == "phase_aligned"
    text = run("analyze", walk, "--next", walk)
    assert text.returncode == 0 and "cut points (phase_aligned)" in text.stdout


def test_transition_writes_the_clip_and_the_stable_table(sample_dir: Path, tmp_path: Path) -> None:
    a = sample_dir / "deep-motion-editing" / "xia_angry_13_000.bvh"
    b = sample_dir / "deep-motion-editing" / "demo_3d_1_fixed.bvh"
    out = tmp_path / "joined.bvh"
    result = run("transition", a, b, "--alpha", "0.6", "--theta", "75", "-o", out, "--json")
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert {"cut", "entry", "blend_s", "engine", "metrics"} <= set(body)
    assert set(body["metrics"]) == {"mtp", "end", "fixed70", "threshold"}
    assert all(set(m) >= METRIC_NAMES for m in body["metrics"].values())
    assert set(body["engine"]) == {"unity", "unreal", "notes"}
    assert body["blending"]["automatic_length"] and 0.1 <= body["blend_s"] <= 0.5
    joined, clip_a, clip_b = bvh.load(out), bvh.load(a), bvh.load(b)
    b_frames = resample.frame_count(clip_b.num_frames, clip_b.fps, clip_a.fps)  # 30 → 120 Hz
    assert joined.num_frames == body["cut"]["frame"] + b_frames - body["entry"]["frame"]
    assert joined.skeleton.names == clip_a.skeleton.names and joined.fps == clip_a.fps
    text = run("transition", a, b, "--blend", "inertialize", "--blend-s", "0.12")
    assert text.returncode == 0 and "Unity: exit time" in text.stdout
    assert "inertialize 0.12 s" in text.stdout and "blend: the length given" in text.stdout


def test_transition_refuses_other_skeletons_and_bad_parameters(sample_dir: Path) -> None:
    walk = sample_dir / "games105" / "walk60.bvh"
    cmu = sample_dir / "cmu-bvh11" / "131_02.bvh"
    other = run("transition", walk, cmu, "--json")
    assert other.returncode == 2
    assert "different skeletons" in json.loads(other.stdout)["error"]["message"]
    bad = run("analyze", walk, "--alpha", "1.5")
    assert bad.returncode == 2 and "--alpha" in bad.stderr
    bounds = run("transition", walk, walk, "--blend-min-s", "0.4", "--blend-max-s", "0.2", "--json")
    assert bounds.returncode == 2
    assert "blend bounds" in json.loads(bounds.stdout)["error"]["message"]


def test_building_the_command_line_imports_no_scipy() -> None:
    """``--help``, ``validate`` and ``info`` start in a fraction of a second: the
    subcommands that need scipy (analysis, transitions, networks, scores) import it when
    they run, not when the parser is built (scipy.signal alone took 0.7 s)."""
    probe = (
        "import sys; from motioncore.cli import app; app._parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, check=True, capture_output=True, text=True
    )
    assert out.stdout.strip() == "[]"


def test_sequence_joins_clips_in_order_and_writes_the_clip(
    sample_dir: Path, tmp_path: Path
) -> None:
    run_clip = sample_dir / "games105" / "run_forward.bvh"
    walk = sample_dir / "games105" / "walk60.bvh"
    out = tmp_path / "sequence.bvh"
    result = run("sequence", run_clip, walk, walk, "-o", out, "--json")
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert [(j["from_clip"], j["to_clip"]) for j in body["joins"]] == [(0, 1), (1, 2)]
    assert bvh.load(out).num_frames == body["frames"]
    text = run("sequence", run_clip, walk)
    assert text.returncode == 0 and "join 1 → 2: cut frame" in text.stdout
    alone = run("sequence", walk, "--json")
    assert alone.returncode == 2 and "2 to 32 clips" in json.loads(alone.stdout)["error"]["message"]


def test_transition_searches_a_library_for_a_bridge_when_the_join_misses(tmp_path: Path) -> None:
    t = np.arange(181) / FPS
    bell = sine_bell()
    for name, z in {
        "slowing": bell.translations[:100, 0, 2],
        "backwards": -1.0 * t,
        "turnaround": 1.2 * t - 0.8 * t**2,
    }.items():
        bvh.save(rigid(z), tmp_path / f"{name}.bvh")
    a, b, out = tmp_path / "slowing.bvh", tmp_path / "backwards.bvh", tmp_path / "bridge.bvh"
    args = ("transition", a, b, "--library", tmp_path, "--bridge-output", out, "--json")
    result = run(*args)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["verdict"]["good"] is False
    assert body["bridge"]["found"] and body["bridge"]["via"]["name"] == "turnaround.bvh"
    assert body["bridge"]["searched_clips"] == 1  # A and B themselves are not searched
    assert bvh.load(out).num_frames == body["bridge"]["frames"]
    text = run("transition", a, b, "--library", a)
    assert "verdict: velocity continuity" in text.stdout
    assert "no good transition: none of 0 clips bridges it" in text.stdout
