"""Where the sample clips and the shared corpus live.

* ``tests/data/`` ships small real BVH clips with the repository (provenance and
  licences in ``tests/data/ATTRIBUTION.md`` and ``MANIFEST.csv``);
* ``../shared/data/`` beside the checkout holds the full corpus; tests that use it
  skip with :data:`SHARED_DATA_ABSENT` when it is absent.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = REPO_ROOT / "tests" / "data"
SAMPLE_MANIFEST = SAMPLE_DIR / "MANIFEST.csv"
SHARED_DATA_ABSENT = "../shared/data is absent (the corpus lives beside the checkout; see README)"


def shared_data_dir() -> Path:
    """Return the shared corpus folder, ``../shared/data`` beside the checkout.

    The path is returned whether or not it exists; use the ``shared_data`` fixture
    in tests to skip when it is missing.
    """
    return REPO_ROOT.parent / "shared" / "data"
