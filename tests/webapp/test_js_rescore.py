"""The browser's re-scoring (``static/js/analysis/``) against motioncore: the parity
fixtures in ``tests/fixtures/rescore/`` are what ``tests/fixtures/make_rescore_fixtures.py``
makes from the current motioncore, and node's tests (``tests/js/``), which check the
port against those fixtures, pass."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from support.fixture_scripts import assert_node_tests_pass, assert_same, load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "fixtures" / "make_rescore_fixtures.py"
JS_TESTS = "tests/js/"
FLOAT_REL_TOL = 1e-12
"""Fixture numbers may move by an ulp across platforms' libm (arccos, sin, cos)."""
REGENERATE = f"regenerate them: .venv/bin/python {SCRIPT.relative_to(ROOT)}"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script(SCRIPT)


@pytest.fixture(scope="module")
def fresh(script: ModuleType) -> dict[str, Any]:
    built: dict[str, Any] = script.build()
    return built


def test_fixture_files_are_exactly_the_generated_set(
    script: ModuleType, fresh: dict[str, Any]
) -> None:
    on_disk = {p.name for p in script.OUT_DIR.glob("*.json")}
    assert on_disk == set(fresh), f"fixture files differ from the script's; {REGENERATE}"


def test_fixtures_are_up_to_date(script: ModuleType, fresh: dict[str, Any]) -> None:
    for name, content in fresh.items():
        path = script.OUT_DIR / name
        assert path.is_file(), f"{name} is missing; {REGENERATE}"
        committed = json.loads(path.read_text(encoding="utf-8"))
        try:
            assert_same(committed, json.loads(script.render(content)), FLOAT_REL_TOL, name)
        except AssertionError as error:
            raise AssertionError(f"{error}; {REGENERATE}") from error


def test_fixtures_stay_small(script: ModuleType) -> None:
    total = sum(p.stat().st_size for p in script.OUT_DIR.glob("*.json"))
    assert total < 600 * 1024, f"{total} bytes of fixtures"


def test_the_fixture_curves_are_what_the_server_sends(script: ModuleType) -> None:
    """The sent curves keep the server's rounding: rebuilding them changes nothing."""
    walk = json.loads((script.OUT_DIR / "clip_walk60.json").read_text(encoding="utf-8"))
    speed = walk["curves"]["speed_m_per_s"]
    assert all(round(x, 5) == x for x in speed)
    assert len(walk["curves"]["com_velocity_m_per_s"]) == 3 * walk["frames"]


def test_node_parity_tests_pass() -> None:
    assert_node_tests_pass(JS_TESTS)
