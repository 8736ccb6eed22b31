"""Shared pytest fixtures and hooks: where the sample clips and the corpus live.

Helpers that test modules import are in the ``support`` package (``tests/support``,
on ``sys.path`` through pytest's ``pythonpath``): ``support.paths``, ``support.corpus``,
``support.humanoid``, ``support.web``; test modules never import ``conftest``.
Tests that use the shared corpus (``shared_data``) are marked ``corpus`` and skip with
a reason when it is absent.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from support.paths import REPO_ROOT, SAMPLE_DIR, SHARED_DATA_ABSENT, shared_data_dir


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
