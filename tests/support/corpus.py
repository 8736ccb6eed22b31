"""The shared corpus's manifest, and one ``pytest.param`` per corpus file."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support.paths import SHARED_DATA_ABSENT, shared_data_dir


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
