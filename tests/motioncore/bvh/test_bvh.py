"""BVH writing, overrides and axis/unit conversion on tiny hand-made files and shipped samples."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, fk, quat
from motioncore.bvh import text as bvh_text
from motioncore.errors import BVHParseError
from support.paths import REPO_ROOT

TWO_ACTORS = """HIERARCHY
ROOT A
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT A_Leg
  {
    OFFSET 0 -90 0
    CHANNELS 2 Xrotation Zrotation
    End Site
    {
      OFFSET 0 -10 0
    }
  }
}
ROOT B
{
  OFFSET 100 0 0
  CHANNELS 3 Xposition Yposition Zposition
  JOINT Site
  {
    OFFSET 0 -100 0
    CHANNELS 0
  }
}
MOTION
Frames: 2
Frame Time: 0.04
0 100 0 0 0 0 30 45 5 100 0
10 100 0 90 0 0 -30 0 0 100 5
"""


def test_a_forest_loads_with_one_tree_per_actor_and_writes_back_the_same_layout() -> None:
    clip = bvh.load(TWO_ACTORS, unit="cm")
    sk = clip.skeleton
    assert sk.names == ("A", "A_Leg", "A_Leg_End", "B", "Site")
    np.testing.assert_array_equal(sk.parents, [-1, 0, 1, -1, 3])
    assert sk.kinds == ("ROOT", "JOINT", "End Site", "ROOT", "JOINT")
    assert list(sk.roots) == [0, 3]
    assert sk.rotation_order(1) == "XZ"
    text = bvh.dump(clip)
    assert "JOINT Site" in text and "End Site" in text and "CHANNELS 2 Xrotation Zrotation" in text
    again = bvh.load(text, unit="cm")
    np.testing.assert_allclose(again.translations, clip.translations, atol=1e-12)
    np.testing.assert_allclose(
        np.abs(np.sum(again.rotations * clip.rotations, -1)), 1.0, atol=1e-12
    )


def test_two_rotation_channels_compose_in_the_listed_order() -> None:
    clip = bvh.load(TWO_ACTORS, unit="cm")
    expected = quat.mul(
        quat.from_axis_angle([1.0, 0.0, 0.0], np.radians(30.0)),
        quat.from_axis_angle([0.0, 0.0, 1.0], np.radians(45.0)),
    )
    np.testing.assert_allclose(clip.rotations[0, 1], expected, atol=1e-12)


def test_units_scale_offsets_and_translations_and_export_restores_them() -> None:
    clip = bvh.load(TWO_ACTORS, unit="cm")
    np.testing.assert_allclose(clip.skeleton.offsets[1], [0.0, -0.9, 0.0])
    np.testing.assert_allclose(clip.translations[1, 0], [0.1, 1.0, 0.0])
    raw = bvh_text.read(bvh.dump(clip))
    np.testing.assert_allclose(raw.values, bvh_text.read(TWO_ACTORS).values, atol=1e-9)
    assert raw.joints[1].offset == (0.0, -90.0, 0.0)


def test_z_up_files_are_turned_to_y_up_and_written_back_z_up() -> None:
    text = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Head
  {
    OFFSET 0 0 0.7
    CHANNELS 3 Zrotation Yrotation Xrotation
    End Site
    {
      OFFSET 0 0 0.2
    }
  }
  JOINT Leg
  {
    OFFSET 0.1 0 -0.9
    CHANNELS 3 Zrotation Yrotation Xrotation
    End Site
    {
      OFFSET 0 0.1 -0.05
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.1
1 2 0.95 0 0 0 0 0 0 0 0 0
"""
    clip = bvh.load(text, unit="m", up_axis="Z")
    positions = fk.positions(clip)[0]
    np.testing.assert_allclose(positions[0], [1.0, 0.95, -2.0])  # (x, y, z) -> (x, z, -y)
    assert positions[2, 1] > positions[0, 1] > positions[4, 1]  # head above hips above foot
    assert bvh.load(text).meta["conventions"]["up_axis"]["value"] == "Z"  # type: ignore[index]
    np.testing.assert_allclose(
        bvh_text.read(bvh.dump(clip)).values, bvh_text.read(text).values, atol=1e-12
    )


def test_position_mode_override_by_joint_name_and_for_all() -> None:
    text = TWO_ACTORS.replace("CHANNELS 2 Xrotation Zrotation", "CHANNELS 1 Yposition")
    text = text.replace("30 45 5 100 0\n", "-90 5 100 0\n").replace(
        "-30 0 0 100 5\n", "-90 0 100 5\n"
    )
    replaced = bvh.load(text, unit="cm", position_mode={"A_Leg": "replace"})
    added = bvh.load(text, unit="cm", position_mode="add")
    assert replaced.translations[0, 1, 1] == pytest.approx(-0.9)
    assert added.translations[0, 1, 1] == pytest.approx(-1.8)
    assert replaced.meta["conventions"]["position_channels"]["overridden"] is True  # type: ignore[index]
    with pytest.raises(BVHParseError, match="unknown joint"):
        bvh.load(text, position_mode={"Nope": "add"})
    with pytest.raises(BVHParseError, match="Unknown unit"):
        bvh.load(text, unit="furlong")


def test_root_offset_is_added_when_that_puts_the_feet_on_the_floor() -> None:
    """iClone style: OFFSET y = 105, channel y ≈ 7 — only 'add' reaches the floor."""
    text = """HIERARCHY
ROOT Hip
{
  OFFSET 0 105 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Leg
  {
    OFFSET 0 -50 0
    CHANNELS 3 Zrotation Yrotation Xrotation
    JOINT Foot
    {
      OFFSET 0 -60 0
      CHANNELS 3 Zrotation Yrotation Xrotation
      End Site
      {
        OFFSET 0 0 10
      }
    }
  }
  JOINT Head
  {
    OFFSET 0 60 0
    CHANNELS 3 Zrotation Yrotation Xrotation
    End Site
    {
      OFFSET 0 10 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.1
0 7 0 0 0 0 0 0 0 0 0 0 0 0 0
10 7 0 0 0 0 0 0 0 0 0 0 0 0 0
"""
    clip = bvh.load(text)
    assert clip.source.position_modes[0] == "add"
    assert fk.positions(clip)[:, 2, 1].min() == pytest.approx(0.02)


def test_shipped_samples_load_round_trip_and_stay_finite(sample_dir: Path) -> None:
    files = sorted(sample_dir.rglob("*.bvh"))
    assert len(files) >= 8
    for path in files:
        clip = bvh.load(path)
        assert np.isfinite(clip.rotations).all() and np.isfinite(clip.translations).all()
        np.testing.assert_allclose(np.linalg.norm(clip.rotations, axis=-1), 1.0, atol=1e-12)
        again = bvh.load(bvh.dump(clip))
        np.testing.assert_allclose(again.translations, clip.translations, rtol=1e-6, atol=1e-9)


def test_motioncore_never_imports_django_celery_or_drf() -> None:
    code = (  # every module but the CLI's entry point and the torch training
        "import importlib, pkgutil, sys, motioncore;"
        "names = [m.name for m in pkgutil.walk_packages(motioncore.__path__, 'motioncore.')];"
        "skip = ('motioncore.__main__', 'motioncore.pfnn.train');"
        "[importlib.import_module(n) for n in names if n not in skip];"
        "assert len(names) > 80, names;"
        "bad = [m for m in ('django', 'celery', 'rest_framework') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    root = REPO_ROOT
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
