"""MotorNerve in the browser (``static/js/motornerve/``) against motioncore: the parity
fixtures in ``tests/fixtures/motornerve/`` are what
``tests/fixtures/make_motornerve_fixtures.py`` makes from the current motioncore, and
node's test (``tests/js/motornerve.test.mjs``), which checks the port against them,
passes."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from motioncore.motornerve import state
from support.fixture_scripts import assert_node_tests_pass, assert_same, load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "fixtures" / "make_motornerve_fixtures.py"
JS_TEST = "tests/js/motornerve.test.mjs"
FLOAT_REL_TOL = 1e-12
"""Manifest numbers (the start state) may move by an ulp across platforms' libm."""
STREAM_ABS_TOL = 1e-5
"""Recorded streams may move a little more: numpy's float32 BLAS sums in another order on
another CPU, and the controller feeds 300 steps back (the port is held to 1e-4)."""
MAX_BYTES = 600 * 1024
REGENERATE = f"regenerate them: .venv/bin/python {SCRIPT.relative_to(ROOT)}"


def arrays(table: list[dict[str, Any]], blob: bytes) -> dict[str, np.ndarray]:
    """The arrays of ``streams.bin`` by name (``streams.json``'s table)."""
    out = {}
    for entry in table:
        dtype = np.dtype(entry["dtype"])
        values = np.frombuffer(blob, dtype, entry["length"], entry["offset"] * dtype.itemsize)
        out[entry["name"]] = values.reshape(entry["shape"])
    return out


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script(SCRIPT)


@pytest.fixture(scope="module")
def fresh(script: ModuleType) -> dict[str, Any]:
    built: dict[str, Any] = script.build()
    return built


def committed(script: ModuleType, name: str) -> bytes:
    path: Path = script.OUT_DIR / name
    assert path.is_file(), f"{name} is missing; {REGENERATE}"
    return path.read_bytes()


def test_fixture_files_are_exactly_the_generated_set(
    script: ModuleType, fresh: dict[str, Any]
) -> None:
    on_disk = {p.name for p in script.OUT_DIR.iterdir()}
    assert on_disk == set(fresh), f"fixture files differ from the script's; {REGENERATE}"


def test_the_network_is_up_to_date(script: ModuleType, fresh: dict[str, Any]) -> None:
    assert committed(script, "network.bin") == fresh["network.bin"], f"network.bin; {REGENERATE}"
    try:
        assert_same(
            json.loads(committed(script, "network.json")), fresh["network.json"], FLOAT_REL_TOL
        )
    except AssertionError as error:
        raise AssertionError(f"network.json: {error}; {REGENERATE}") from error


def test_the_streams_are_up_to_date(script: ModuleType, fresh: dict[str, Any]) -> None:
    streams = json.loads(committed(script, "streams.json"))
    expected = json.loads(script.render(fresh["streams.json"]))
    margins = streams["controller"].pop("margins"), expected["controller"].pop("margins")
    try:
        assert_same(streams, expected, FLOAT_REL_TOL, "streams.json")
        assert margins[0].keys() == margins[1].keys(), "margins"
        for key, value in margins[1].items():
            assert abs(margins[0][key] - value) <= STREAM_ABS_TOL, f"margins.{key}"
    except AssertionError as error:
        raise AssertionError(f"{error}; {REGENERATE}") from error
    ours = arrays(streams["arrays"], committed(script, "streams.bin"))
    theirs = arrays(expected["arrays"], fresh["streams.bin"])
    for name, value in theirs.items():
        np.testing.assert_allclose(
            ours[name], value, rtol=0, atol=STREAM_ABS_TOL, err_msg=f"{name}; {REGENERATE}"
        )


def test_the_recorded_run_stays_clear_of_every_threshold(fresh: dict[str, Any]) -> None:
    margins = fresh["streams.json"]["controller"]["margins"]
    assert min(margins.values()) > 10 * STREAM_ABS_TOL, margins
    assert "1" in fresh["streams.json"]["controller"]["queued"]
    table = arrays(fresh["streams.json"]["arrays"], fresh["streams.bin"])
    stood = np.all(table["controller_states"][:, state.VELOCITY] == 0.0, axis=-1)
    assert stood.sum() > 20, "the standing rule (runtime.STAND_BELOW_MPS) is not exercised"


def test_fixtures_stay_small(script: ModuleType) -> None:
    """The network of the brief's small shape alone packs to 275 KiB (``conv1.weight``
    and ``fusion.0.weight`` hold most of it), the recorded streams to 218 KiB."""
    total = sum(p.stat().st_size for p in script.OUT_DIR.iterdir())
    assert total < MAX_BYTES, f"{total} bytes of fixtures"


def test_node_parity_test_passes() -> None:
    assert_node_tests_pass(JS_TEST)
