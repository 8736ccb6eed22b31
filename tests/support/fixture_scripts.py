"""Helpers of the tests that hold the browser's ports to Python-made fixtures: load a
fixture script (``tests/fixtures/make_*.py``; ``tests/`` is not a package) and compare
decoded JSON documents with a float tolerance."""

from __future__ import annotations

import importlib.util
import math
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_script(script: Path) -> ModuleType:
    """The fixture script at ``script`` as a module."""
    spec = importlib.util.spec_from_file_location(script.stem, script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_same(actual: Any, expected: Any, tolerance: float, path: str = "$") -> None:
    """Equal structure, strings, ints and bools; floats within ``tolerance`` (relative and
    absolute)."""
    if isinstance(expected, float) or isinstance(actual, float):
        assert isinstance(actual, int | float) and isinstance(expected, int | float), path
        assert math.isclose(actual, expected, rel_tol=tolerance, abs_tol=tolerance), (
            f"{path}: {actual} != {expected}"
        )
    elif isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys(), f"{path}: keys"
        for key, value in expected.items():
            assert_same(actual[key], value, tolerance, f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{path}: length"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_same(a, e, tolerance, f"{path}[{i}]")
    else:
        assert type(actual) is type(expected) and actual == expected, f"{path}: {actual!r}"


def assert_node_tests_pass(target: str) -> None:
    """``node --test target`` (a file or folder under the repository) passes; skipped,
    with the reason, where node is not installed."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH: the JavaScript parity tests (tests/js/) need Node ≥ 20")
    done = subprocess.run(
        [node, "--test", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
