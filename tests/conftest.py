"""Shared pytest fixtures and helpers: where the sample clips and the corpus live.

* ``tests/data/`` ships small real BVH clips with the repository (``sample_dir``;
  provenance and licences in ``tests/data/ATTRIBUTION.md`` and ``MANIFEST.csv``).
* ``../shared/data/`` beside the checkout holds the full corpus (``shared_data``);
  tests that use it are marked ``corpus`` automatically and skip with a reason
  when it is absent.

Helpers for collection time (e.g. ``pytest.mark.parametrize``) are importable from
test modules as ``from conftest import manifest_rows, shared_data_dir, SAMPLE_DIR``.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from motioncore.clip import Skeleton

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = REPO_ROOT / "tests" / "data"
SAMPLE_MANIFEST = SAMPLE_DIR / "MANIFEST.csv"
SHARED_DATA_ABSENT = "../shared/data is absent (the corpus lives beside the checkout; see README)"


def shared_data_dir() -> Path:
    """Return the shared corpus folder, ``../shared/data`` beside the checkout.

    The path is returned whether or not it exists; use the ``shared_data`` fixture
    in tests to skip when it is missing.
    """
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"


def manifest_rows(manifest: Path | None = None) -> list[dict[str, str]]:
    """Read a ``MANIFEST.csv`` into a list of rows (``csv.DictReader``).

    Args:
        manifest: the CSV to read; defaults to the shared corpus manifest
            ``shared_data_dir() / "MANIFEST.csv"``. ``SAMPLE_MANIFEST`` is the one
            for ``tests/data``.

    Returns:
        One dict per row, keyed by the header (``relative_path``, ``sha256``,
        ``frames``, ``fps``, ``license_flags``, ``category``, ...; see
        ``../shared/data/README.md``). All values are strings. ``relative_path`` is
        relative to the manifest's folder. An empty list when the file is absent,
        so that parametrising over it at collection time never crashes; tests that
        need the corpus should also request the ``shared_data`` fixture.
    """
    path = shared_data_dir() / "MANIFEST.csv" if manifest is None else manifest
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def corpus_bvh_params(
    keep: Callable[[dict[str, str]], bool] = lambda row: True,
) -> list[Any]:
    """``pytest.param`` per corpus BVH file whose MANIFEST row passes ``keep``.

    Each param is ``(path, row)`` with the file's name as id. When the corpus is
    absent, a single param skipped with :data:`SHARED_DATA_ABSENT`, so the test
    shows up as skipped with the reason instead of vanishing.
    """
    rows = [r for r in manifest_rows() if r["relative_path"].endswith(".bvh") and keep(r)]
    if not rows:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=SHARED_DATA_ABSENT))]
    base = shared_data_dir()
    return [
        pytest.param(
            base / r["relative_path"],
            r,
            id=r["relative_path"].removeprefix("bvh/"),
            marks=pytest.mark.corpus,
        )
        for r in rows
    ]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared corpus folder (``../shared/data``); skips the test when absent."""
    path = shared_data_dir()
    if not path.is_dir():
        pytest.skip(SHARED_DATA_ABSENT)
    return path


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    """The folder of sample clips shipped with the repository (``tests/data``)."""
    return SAMPLE_DIR


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses the shared corpus as ``corpus``."""
    for item in items:
        if "shared_data" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.corpus)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Fail fast when ``import motioncore`` found something else than this checkout's.

    A ``tests/motioncore/__init__.py`` would make pytest put ``tests/`` first on
    ``sys.path``, so that ``import motioncore`` silently imports the test folder.
    """
    module = sys.modules.get("motioncore")
    if module is None:
        return
    expected = REPO_ROOT / "motioncore" / "__init__.py"
    found = Path(getattr(module, "__file__", None) or "<namespace package>")
    if found.resolve() != expected:
        pytest.exit(
            f"'import motioncore' loaded {found}, not {expected}: "
            "test folders must not contain __init__.py files that shadow the package",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )


# --- a tiny humanoid for analytic motions ---------------------------------------------------------

TINY_HUMANOID_JOINTS: tuple[tuple[str, int, tuple[float, float, float]], ...] = (
    ("Hips", -1, (0.0, 1.0, 0.0)),
    ("Spine", 0, (0.0, 0.1, 0.0)),
    ("Chest", 1, (0.0, 0.2, 0.0)),
    ("Neck", 2, (0.0, 0.2, 0.0)),
    ("Head", 3, (0.0, 0.1, 0.0)),
    ("LeftShoulder", 2, (0.05, 0.15, 0.0)),
    ("LeftArm", 5, (0.15, 0.0, 0.0)),
    ("LeftForeArm", 6, (0.3, 0.0, 0.0)),
    ("LeftHand", 7, (0.25, 0.0, 0.0)),
    ("RightShoulder", 2, (-0.05, 0.15, 0.0)),
    ("RightArm", 9, (-0.15, 0.0, 0.0)),
    ("RightForeArm", 10, (-0.3, 0.0, 0.0)),
    ("RightHand", 11, (-0.25, 0.0, 0.0)),
    ("LeftUpLeg", 0, (0.1, 0.0, 0.0)),
    ("LeftLeg", 13, (0.0, -0.45, 0.0)),
    ("LeftFoot", 14, (0.0, -0.45, 0.0)),
    ("LeftToeBase", 15, (0.0, -0.05, 0.12)),
    ("RightUpLeg", 0, (-0.1, 0.0, 0.0)),
    ("RightLeg", 17, (0.0, -0.45, 0.0)),
    ("RightFoot", 18, (0.0, -0.45, 0.0)),
    ("RightToeBase", 19, (0.0, -0.05, 0.12)),
)
"""``(name, parent index, rest offset in metres)`` of a 21-joint humanoid whose roles all
resolve by name; +Z is its facing (left upper leg at +X, head up)."""


def tiny_humanoid() -> Skeleton:
    """:data:`TINY_HUMANOID_JOINTS` as a skeleton: the root has six channels, the rest three."""
    joints = TINY_HUMANOID_JOINTS
    return Skeleton(
        names=tuple(n for n, _, _ in joints),
        parents=np.array([p for _, p, _ in joints]),
        offsets=np.array([o for _, _, o in joints]),
        channels=(("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation"),)
        + (("Zrotation", "Xrotation", "Yrotation"),) * (len(joints) - 1),
        kinds=tuple("ROOT" if p < 0 else "JOINT" for _, p, _ in joints),
    )
