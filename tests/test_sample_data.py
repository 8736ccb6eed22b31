"""The sample clips in tests/data are intact, licensed for the repository and listed.

These guard the provenance promises of ``tests/data/ATTRIBUTION.md``: every clip is
a byte-for-byte copy (checked by sha256, which also catches line-ending conversion
by git), none carries a non-commercial or copyleft licence, and every clip is both
in ``tests/data/MANIFEST.csv`` and in the attribution file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from support.corpus import manifest_rows
from support.paths import SAMPLE_DIR, SAMPLE_MANIFEST

SAMPLE_ROWS = manifest_rows(SAMPLE_MANIFEST)
FORBIDDEN_FLAGS = ("NON-COMMERCIAL", "copyleft", "possible-Mixamo-origin", "third-party-origin")
MAX_TOTAL_BYTES = 3 * 1024 * 1024


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_manifest_lists_exactly_the_shipped_clips() -> None:
    shipped = sorted(str(p.relative_to(SAMPLE_DIR)) for p in SAMPLE_DIR.rglob("*.bvh"))
    listed = sorted(row["relative_path"] for row in SAMPLE_ROWS)
    assert len(shipped) >= 8
    assert listed == shipped


@pytest.mark.parametrize("row", SAMPLE_ROWS, ids=lambda row: row["relative_path"])
def test_clip_is_a_byte_for_byte_copy(row: dict[str, str]) -> None:
    path = SAMPLE_DIR / row["relative_path"]
    assert path.stat().st_size == int(row["size_bytes"])
    assert _sha256(path) == row["sha256"]


@pytest.mark.parametrize("row", SAMPLE_ROWS, ids=lambda row: row["relative_path"])
def test_clip_licence_allows_shipping(row: dict[str, str]) -> None:
    flags = row["license_flags"]
    assert not [flag for flag in FORBIDDEN_FLAGS if flag in flags]
    assert not row["license"].startswith(("GPL", "AGPL", "CC BY-NC"))


def test_every_clip_is_attributed() -> None:
    attribution = (SAMPLE_DIR / "ATTRIBUTION.md").read_text(encoding="utf-8")
    missing = [
        row["relative_path"]
        for row in SAMPLE_ROWS
        if f"`{row['relative_path']}`" not in attribution or row["sha256"] not in attribution
    ]
    assert missing == []


def test_samples_stay_small() -> None:
    total = sum(p.stat().st_size for p in SAMPLE_DIR.rglob("*.bvh"))
    assert total <= MAX_TOTAL_BYTES


@pytest.mark.parametrize("row", SAMPLE_ROWS, ids=lambda row: row["relative_path"])
def test_clip_matches_the_shared_corpus(row: dict[str, str], shared_data: Path) -> None:
    corpus = {r["relative_path"]: r for r in manifest_rows(shared_data / "MANIFEST.csv")}
    source = corpus.get(f"bvh/{row['relative_path']}")
    if source is None:
        pytest.skip(f"{row['relative_path']} is not in the shared corpus (fetched from its source)")
    assert source["sha256"] == row["sha256"]
    assert source["commit"] == row["commit"]
