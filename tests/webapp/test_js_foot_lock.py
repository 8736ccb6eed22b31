"""The browser's foot lock (``static/js/motornerve/foot-lock.js``) against motioncore's:
the fixture in ``tests/fixtures/foot_lock/`` is what
``tests/fixtures/make_foot_lock_fixtures.py`` makes from the current motioncore and
shipped weights, and node's test (``tests/js/foot-lock.test.mjs``), which holds the port
to it within 1e-4 m, passes."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from support.fixture_scripts import assert_node_tests_pass, assert_same, load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "fixtures" / "make_foot_lock_fixtures.py"
JS_TEST = "tests/js/foot-lock.test.mjs"
ABS_TOL = 1e-5
"""The recorded play may move a little across CPUs (numpy's float32 BLAS sums in another
order); the port is held to 1e-4."""
MAX_BYTES = 400 * 1024
REGENERATE = f"regenerate it: .venv/bin/python {SCRIPT.relative_to(ROOT)}"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script(SCRIPT)


@pytest.fixture(scope="module")
def fresh(script: ModuleType) -> dict[str, Any]:
    built: dict[str, Any] = script.build()
    return built


def _arrays(document: dict[str, Any], blob: bytes) -> dict[str, np.ndarray]:
    return {
        e["name"]: np.frombuffer(blob, "<f4", e["length"], 4 * e["offset"]).reshape(e["shape"])
        for e in document["arrays"]
    }


def test_the_fixture_is_up_to_date(script: ModuleType, fresh: dict[str, Any]) -> None:
    on_disk = {p.name for p in script.OUT_DIR.iterdir()}
    assert on_disk == set(fresh), f"fixture files differ from the script's; {REGENERATE}"
    document = json.loads((script.OUT_DIR / "case.json").read_text())
    expected = json.loads(script.render(fresh["case.json"]))
    margins = document.pop("margin"), expected.pop("margin")
    try:
        assert_same(document, expected, 1e-9, "case.json")
        assert abs(margins[0] - margins[1]) <= ABS_TOL
    except AssertionError as error:
        raise AssertionError(f"{error}; {REGENERATE}") from error
    ours = _arrays(document, (script.OUT_DIR / "case.bin").read_bytes())
    for name, value in _arrays(expected, fresh["case.bin"]).items():
        np.testing.assert_allclose(ours[name], value, rtol=0, atol=ABS_TOL, err_msg=REGENERATE)


def test_the_fixture_stays_clear_of_the_thresholds_and_small(
    script: ModuleType, fresh: dict[str, Any]
) -> None:
    assert fresh["case.json"]["margin"] > 10 * ABS_TOL
    total = sum(p.stat().st_size for p in script.OUT_DIR.iterdir())
    assert total < MAX_BYTES, f"{total} bytes of fixtures"


def test_node_parity_test_passes() -> None:
    assert_node_tests_pass(JS_TEST)
