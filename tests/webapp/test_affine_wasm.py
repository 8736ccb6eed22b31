"""MotorNerve's browser kernel (static/js/motornerve/affine.wat, compiled into
affine-wasm.js): the committed module is the build of the text, and its arithmetic is
y = W x + b to float32 rounding, run here with wasmtime on the sizes the network has
and on ones whose rows and columns are not multiples of four."""

from __future__ import annotations

import base64
import importlib.util
import re
from types import ModuleType

import numpy as np
import pytest

from support.paths import REPO_ROOT

wasmtime = pytest.importorskip("wasmtime", reason="wasmtime is in the dev extras")

SIZES = [(480, 650), (480, 2400), (384, 480), (384, 128), (130, 256), (2, 256), (7, 13), (1, 1)]
"""(rows, cols): the shipped network's products, then odd ones (the tails)."""


def _build_script() -> ModuleType:
    path = REPO_ROOT / "scripts" / "lib" / "affine_wasm.py"
    spec = importlib.util.spec_from_file_location("affine_wasm", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _committed_bytes() -> bytes:
    text = (REPO_ROOT / "static" / "js" / "motornerve" / "affine-wasm.js").read_text()
    found = re.search(r"const BASE64 = `([^`]*)`", text)
    assert found is not None
    return base64.b64decode(re.sub(r"\s", "", found.group(1)))


def test_the_committed_module_is_the_build_of_the_text() -> None:
    build = _build_script()
    assert _committed_bytes() == build.compiled()
    assert build.main(["--check"]) == 0


@pytest.mark.parametrize(("rows", "cols"), SIZES)
def test_the_kernel_is_w_x_plus_b_to_float32_rounding(rows: int, cols: int) -> None:
    store = wasmtime.Store()
    instance = wasmtime.Instance(store, wasmtime.Module(store.engine, _committed_bytes()), [])
    memory, affine = instance.exports(store)["memory"], instance.exports(store)["affine"]
    rng = np.random.default_rng(rows * 10_000 + cols)
    w = rng.standard_normal((rows, cols)).astype(np.float32)
    b = rng.standard_normal(rows).astype(np.float32)
    x = rng.standard_normal(cols).astype(np.float32)
    # w at 0, then b, x and y each 4 bytes past a 16-byte boundary: unaligned loads too
    at = [0]
    for a in (w, b, x):
        at.append(at[-1] + (a.nbytes + 15) // 16 * 16 + 4)
    memory.grow(store, at[-1] // 65536 + 1)
    for a, where in zip((w, b, x), at, strict=False):
        memory.write(store, a.tobytes(), where)
    y_at = at[3]
    memory.write(store, np.full(rows + 1, 7.0, np.float32).tobytes(), y_at)
    affine(store, at[0], at[1], at[2], y_at, rows, cols)
    out = np.frombuffer(memory.read(store, y_at, y_at + 4 * (rows + 1)), dtype=np.float32)
    exact = w.astype(np.float64) @ x.astype(np.float64) + b
    # float32 sums of `cols` products: a few units of float32 rounding per product
    bound = 4 * np.finfo(np.float32).eps * (np.abs(w) @ np.abs(x) + np.abs(b)) * np.sqrt(cols)
    assert np.all(np.abs(out[:rows] - exact) <= bound)
    assert out[rows] == 7.0  # nothing written past y
