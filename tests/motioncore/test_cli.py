"""The command line, run as users run it: ``python -m motioncore ...`` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "motioncore", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


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
