"""MotorNerve's network step in headless Chromium: the hand-written kernel against
onnxruntime-web (WASM), with numpy in the same run.

The issue asks to measure onnxruntime-web against a small hand-written kernel, keep the
faster that agrees with numpy within 1e-4 on recorded input streams, and for one step
under 1 ms in numpy and under 3 ms in headless Chromium (medians, in the same run).

One **step** is what the runtime does at 30 Hz: predict the next state for the intent,
then push it (the prediction fed back: autoregressive), on a network of the default
:class:`~motioncore.motornerve.network.Shape` (2.89 M parameters; random weights with
unit output normalisation, :func:`bench_weights`, unless ``--weights`` names an ``.npz``). The
intent changes every :data:`INTENT_EVERY` steps (the intent encoder's cache is hit and
missed, as when a user steers). After a fill of the start state, ``--warmup`` steps, then
``--steps`` timed ones, each timed on its own.

Rows (browser pages are ``bench/motornerve_harness.html``, each in a fresh context;
``--rounds`` pages per runtime, the order rotated each round, the samples pooled):

* **hand kernel**: ``static/js/motornerve/network.js``'s ``Stepper`` (what the page uses);
* **ORT-web, whole history**: onnxruntime-web's WASM backend (SIMD) on
  :func:`motioncore.motornerve.onnx_export.export_forward`: the whole 15-state history
  each step, as the issue describes the export (15.7 M multiply-adds), with the
  convolutions as matrix products, and once more as torch exports them (ONNX ``Conv``,
  which onnxruntime-web runs slowly at these shapes);
* **ORT-web, incremental**: the same backend on
  :func:`~motioncore.motornerve.onnx_export.export_stepper`'s graphs, which cache the
  convolution columns and the intent code as the hand kernel does (5.4 M multiply-adds a
  step against the hand kernel's 3.2 M: ONNX's GRU recomputes the input projections);
* the two ORT rows with matrix products again with ``--threads`` WebAssembly threads (the
  server sends COOP/COEP, so the pages are cross-origin isolated);
* **numpy**: :class:`~motioncore.motornerve.network.Stepper` in this process, the reference;
* **onnxruntime (Python)**: both exports on the native CPU backend, for scale (if
  installed).

numpy, onnxruntime (Python) and torch get one thread each (``OPENBLAS_NUM_THREADS`` and
the like, unless set): one character steps in one thread, and on a loaded 2-core machine
a second BLAS thread made numpy's step 8-12 ms instead of 0.5 ms (it waits for a
descheduled thread).

Parity: every step's state and contact probabilities of every row against numpy's on
the same stream, and each browser runtime on the stepper stream recorded in
``tests/fixtures/motornerve/`` (the fixture network; varied pushes, one to three
predictions after each) against its recorded numpy outputs: max abs difference, must be
≤ :data:`PARITY_TOL`. Before the browser, both exports are checked in onnxruntime (Python)
against :meth:`Weights.forward` (≤ :data:`ONNX_TOL`). onnxruntime-web's files are served
from ``node_modules/onnxruntime-web`` (the exact version of ``package-lock.json``), and
the sha256 of every file the pages fetched from it is printed and checked against
:data:`ORT_WEB_SHA256`. Exit 1 on a parity failure, an ONNX check failure or a checksum
mismatch; the speed targets only print PASS or FAIL.

    .venv/bin/python bench/motornerve_browser.py [--steps 500] [--rounds 2] [--json PATH]
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import hashlib
import http.server
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy and torch load (module docstring)

import numpy as np  # noqa: E402

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(REPO_ROOT))

from viewer_bench import CHROMIUM, FLAGS, Handler  # noqa: E402

from motioncore.motornerve import network, onnx_export, packed, state  # noqa: E402
from motioncore.motornerve.network import HISTORY, Weights  # noqa: E402

HARNESS = "/bench/motornerve_harness.html"
FIXTURES = REPO_ROOT / "tests" / "fixtures" / "motornerve"
ORT_WEB = REPO_ROOT / "node_modules" / "onnxruntime-web"
ORT_WEB_VERSION = "1.31.1"
ORT_WEB_SHA256 = {
    "dist/ort.wasm.min.mjs": "c21d9c326d453a4a61398270c804d5979e118540597cb0c07f7b3d64e6098234",
    "dist/ort-wasm-simd-threaded.mjs": (
        "30ed0b5cd1182ede931fea448afb567d4dc705ec957af09f108a2be5f770dac3"
    ),
    "dist/ort-wasm-simd-threaded.wasm": (
        "4b884c203b0fa48d057be3332c65513ff85aa3c5bddd6946acc0fab7ecda001d"
    ),
}
"""sha256 of the files of onnxruntime-web 1.31.1 the harness loads (npm's tarball, whose
sha512 ``package-lock.json`` pins and ``npm ci`` checks)."""
PARITY_TOL = 1e-4
ONNX_TOL = 1e-5
NUMPY_TARGET_MS = 1.0
BROWSER_TARGET_MS = 3.0
MIN_STEPS = 300
"""The issue's least number of timed steps."""
INTENT_EVERY = 15
INTENT_POOL = 16
PAGE_TIMEOUT_MS = 600_000
RUNTIMES = {
    "hand": "hand kernel (network.js Stepper)",
    "ort-forward-conv": "ORT-web WASM, whole history, ONNX Conv",
    "ort-forward": "ORT-web WASM, whole history (export_forward)",
    "ort-step": "ORT-web WASM, incremental (export_stepper)",
}


class Runner(Protocol):
    def push(self, raw_state: Any) -> None: ...

    def predict(self, raw_intent: Any) -> tuple[Any, Any]: ...


# ---------------------------------------------------------------- inputs


def bench_weights(seed: int) -> Weights:
    """Random weights of the default shape with unit output normalisation: the compared
    states are then the motion head's outputs themselves (``random_weights``' output
    deviation of 0.01 would scale every difference by 0.01)."""
    weights = network.random_weights(seed=seed)
    return dataclasses.replace(weights, output_std=np.ones_like(weights.output_std))


def start_state(weights: Weights) -> np.ndarray:
    """The saved start state (trained weights), else standing at 0.95 m with every joint
    at rest (6-D identity rotations), as ``bench/motornerve_js_step.mjs`` starts."""
    saved = weights.meta.get("start_state")
    if saved is not None:
        return np.asarray(saved, np.float64)
    out = np.zeros(weights.shape.state)
    out[state.ROTATIONS] = np.tile([1.0, 0.0, 0.0, 0.0, 1.0, 0.0], len(out[state.ROTATIONS]) // 6)
    out[state.HEIGHT] = 0.95
    return out


def fixture_stream() -> dict[str, Any]:
    """The fixture network and its recorded stepper stream (``streams.json``/``.bin``)."""
    table = json.loads((FIXTURES / "streams.json").read_text())
    blob = (FIXTURES / "streams.bin").read_bytes()
    arrays = {}
    for entry in table["arrays"]:
        dtype = np.dtype(entry["dtype"])
        values = np.frombuffer(blob, dtype, entry["length"], entry["offset"] * dtype.itemsize)
        arrays[entry["name"]] = values.reshape(entry["shape"]).astype(np.float64)
    manifest = json.loads((FIXTURES / "network.json").read_text())
    weights = packed.unpack(manifest, (FIXTURES / "network.bin").read_bytes())
    return {"weights": weights, "stepper": table["stepper"], "arrays": arrays}


def write_inputs(folder: Path, weights: Weights, fixture: dict[str, Any]) -> dict[str, Any]:
    """The packed networks and ONNX models under ``folder``; the harness's data (URLs)."""

    def url(path: Path) -> str:
        return "/" + path.relative_to(REPO_ROOT).as_posix()

    def files(name: str, w: Weights) -> dict[str, str]:
        manifest, blob = packed.pack(w)
        models = {
            "forward": onnx_export.export_forward(w),
            "forward_conv": onnx_export.export_forward(w, convolution="conv"),
            **onnx_export.export_stepper(w),
        }
        out = {"manifest": folder / f"{name}.json", "blob": folder / f"{name}.bin"}
        out["manifest"].write_text(packed.dumps(manifest))
        out["blob"].write_bytes(blob)
        for kind, model in models.items():
            out[kind] = folder / f"{name}.{kind}.onnx"
            out[kind].write_bytes(model)
        return {k: url(v) for k, v in out.items()}

    arrays, stepper = fixture["arrays"], fixture["stepper"]
    return {
        "network": files("network", weights),
        "fixture": {
            "network": files("fixture", fixture["weights"]),
            "pushes": arrays["stepper_pushes"].tolist(),
            "intents": arrays["stepper_intents"].tolist(),
            "after_push": stepper["after_push"],
            "intent_index": stepper["intent_index"],
        },
    }


# ---------------------------------------------------------------- Python rows


class OrtForward:
    """onnxruntime (Python) on :func:`onnx_export.export_forward`, a sliding history."""

    def __init__(self, weights: Weights, session: Any) -> None:
        self.weights, self.session = weights, session
        self.window = np.zeros((HISTORY, weights.shape.state), np.float32)
        self.last = np.zeros(weights.shape.state)

    def push(self, raw_state: Any) -> None:
        normed, _ = self.weights.normalise(raw_state, np.zeros(self.weights.shape.intent))
        self.window = np.concatenate([self.window[1:], normed[None]])
        self.last = np.asarray(raw_state, np.float64)

    def predict(self, raw_intent: Any) -> tuple[Any, Any]:
        _, normed = self.weights.normalise(np.zeros(self.weights.shape.state), raw_intent)
        feeds = {"history": self.window[None], "intent": normed[None]}
        motion, contact = self.session.run(None, feeds)
        return self.weights.next_state(self.last, motion[0]), network.sigmoid(contact[0])


class OrtStep:
    """onnxruntime (Python) on :func:`onnx_export.export_stepper` (:class:`OnnxStepper`)."""

    def __init__(self, weights: Weights, stepper: onnx_export.OnnxStepper) -> None:
        self.weights, self.stepper = weights, stepper

    def push(self, raw_state: Any) -> None:
        self.stepper.push(raw_state)

    def predict(self, raw_intent: Any) -> tuple[Any, Any]:
        motion, logits = self.stepper.predict(raw_intent)
        return self.weights.next_state(self.stepper.last, motion), network.sigmoid(logits)


def run_python(runner: Runner, data: dict[str, Any]) -> dict[str, Any]:
    """The harness's timed stream in Python: samples (ms), every step's state and contacts."""
    for _ in range(HISTORY):
        runner.push(np.asarray(data["start"]))
    intents = np.asarray(data["intents"])
    n = data["warmup"] + data["steps"]
    states, contacts, samples = [], [], []
    gc.collect()
    for t in range(n):
        intent = intents[(t // data["intent_every"]) % len(intents)]
        t0 = time.perf_counter()
        nxt, contact = runner.predict(intent)
        runner.push(nxt)
        ms = (time.perf_counter() - t0) * 1e3
        if t >= data["warmup"]:
            samples.append(ms)
        states.append(nxt)
        contacts.append(contact)
    return {"samples_ms": samples, "states": np.array(states), "contacts": np.array(contacts)}


def ort_sessions(folder: Path, name: str) -> dict[str, Any] | None:
    """onnxruntime (Python) sessions of the written models (one thread), or None."""
    try:
        import onnxruntime
    except ImportError:
        return None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    return {
        kind: onnxruntime.InferenceSession(
            str(folder / f"{name}.{kind}.onnx"), options, providers=["CPUExecutionProvider"]
        )
        for kind in ("forward", "step", "intent")
    }


def onnx_check(weights: Weights, sessions: dict[str, Any], seed: int) -> dict[str, float]:
    """Max |ONNX - numpy| of both exports' network outputs (motion head, contact logits):
    the forward graph on random normalised inputs, the incremental graphs after pushes
    of random raw states against :meth:`Weights.forward` on the same history."""
    rng = np.random.default_rng(seed)
    s, i = weights.shape.state, weights.shape.intent
    worst = {"forward": 0.0, "step": 0.0}
    for _ in range(4):
        history = rng.normal(size=(1, HISTORY, s)).astype(np.float32)
        intent = rng.normal(size=(1, i)).astype(np.float32)
        got = sessions["forward"].run(None, {"history": history, "intent": intent})
        want = weights.forward(history, intent)
        worst["forward"] = max(
            worst["forward"], *(float(np.abs(g - w).max()) for g, w in zip(got, want, strict=True))
        )
    stepper = onnx_export.OnnxStepper(weights, sessions["step"], sessions["intent"])
    raw = rng.normal(size=(HISTORY + 8, s))
    for t, row in enumerate(raw):
        stepper.push(row)
        if t + 1 < HISTORY:
            continue
        want_intent = rng.normal(size=i)
        got = stepper.predict(want_intent)
        history, normed = weights.normalise(raw[t + 1 - HISTORY : t + 1], want_intent)
        want = weights.forward(history[None], normed[None])
        worst["step"] = max(
            worst["step"], *(float(np.abs(g - w[0]).max()) for g, w in zip(got, want, strict=True))
        )
    return worst


# ---------------------------------------------------------------- browser rows


@contextmanager
def serving() -> Iterator[tuple[str, set[str]]]:
    """The repository over HTTP (COOP/COEP) on a loopback port; the paths requested."""
    requested: set[str] = set()

    class Recording(Handler):
        extensions_map = {
            **Handler.extensions_map,
            ".mjs": "text/javascript",
            ".wasm": "application/wasm",
            ".onnx": "application/octet-stream",
        }

        def do_GET(self) -> None:
            requested.add(self.path.split("?", 1)[0])
            super().do_GET()

    def handler(*args: Any, **kwargs: Any) -> Recording:
        return Recording(*args, directory=str(REPO_ROOT), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requested
    finally:
        server.shutdown()


def run_page(browser: Any, base: str, data_url: str, runtime: str, threads: int) -> dict[str, Any]:
    """One harness page in a fresh context: its ``window.result``."""
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}{HARNESS}?runtime={runtime}&threads={threads}&data={data_url}")
        try:
            page.wait_for_function("window.result !== undefined", timeout=PAGE_TIMEOUT_MS)
        except Exception:
            print(f"{runtime} ({threads} threads) failed: {errors}", file=sys.stderr)
            raise
        result: dict[str, Any] = page.evaluate("window.result")
    finally:
        context.close()
    if "error" in result:
        raise SystemExit(
            f"the harness page ({runtime}, {threads} threads) failed: {result['error']}"
        )
    return result


def run_browser(
    configs: list[tuple[str, int]], data_url: str, rounds: int
) -> tuple[dict[tuple[str, int], list[dict[str, Any]]], str, set[str]]:
    """Every config's page results over ``rounds`` (the order rotated each round), the
    browser's version and the paths the pages requested."""
    from playwright.sync_api import sync_playwright

    out: dict[tuple[str, int], list[dict[str, Any]]] = {c: [] for c in configs}
    with serving() as (base, requested), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            for r in range(rounds):
                shift = r % len(configs)
                for config in configs[shift:] + configs[:shift]:
                    out[config].append(run_page(browser, base, data_url, *config))
            version = browser.version
        finally:
            browser.close()
    return out, version, requested


# ---------------------------------------------------------------- report


def max_diff(got: Any, want: np.ndarray) -> float:
    return float(np.abs(np.asarray(got, np.float64).reshape(want.shape) - want).max())


def browser_row(
    results: list[dict[str, Any]], ref: dict[str, Any], fixture: dict[str, np.ndarray]
) -> dict[str, Any]:
    """Pooled samples and the worst parity over the rounds of one config."""
    return {
        "samples_ms": [s for r in results for s in r["samples_ms"]],
        "state": max(max_diff(r["states"], ref["states"]) for r in results),
        "contacts": max(max_diff(r["contacts"], ref["contacts"]) for r in results),
        "fixture_state": max(
            max_diff(r["fixture"]["states"], fixture["stepper_states"]) for r in results
        ),
        "fixture_contacts": max(
            max_diff(r["fixture"]["contacts"], fixture["stepper_contacts"]) for r in results
        ),
        "init_ms": statistics.median(r["init_ms"] for r in results),
        "threads": results[0]["threads"],
        "isolated": results[0]["crossOriginIsolated"],
    }


def python_row(result: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    return {
        "samples_ms": result["samples_ms"],
        "state": max_diff(result["states"], ref["states"]),
        "contacts": max_diff(result["contacts"], ref["contacts"]),
        "fixture_state": None,
        "fixture_contacts": None,
        "init_ms": None,
        "threads": 1,
    }


def quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def parity_ok(row: dict[str, Any]) -> bool:
    values = [row[k] for k in ("state", "contacts", "fixture_state", "fixture_contacts")]
    return all(v is None or v <= PARITY_TOL for v in values)


def print_table(rows: dict[str, dict[str, Any]]) -> None:
    hand = statistics.median(rows[RUNTIMES["hand"] + ", 1 thread"]["samples_ms"])
    print(
        "\n| runtime | ms/step median | p95 | this/hand (median) | max abs Δ vs numpy: "
        "state / contacts | fixture stream: state / contacts | load ms |"
        "\n|---|---:|---:|---:|---|---|---:|"
    )
    fmt = "{:.1e}".format
    for name, row in rows.items():
        median = statistics.median(row["samples_ms"])
        fixture = (
            "—"
            if row["fixture_state"] is None
            else f"{fmt(row['fixture_state'])} / {fmt(row['fixture_contacts'])}"
        )
        load = "—" if row["init_ms"] is None else f"{row['init_ms']:.0f}"
        print(
            f"| {name} | {median:.3f} | {quantile(row['samples_ms'], 0.95):.3f} | "
            f"{median / hand:.2f} | {fmt(row['state'])} / {fmt(row['contacts'])} | {fixture} | "
            f"{load} |"
        )


def checksums(requested: set[str]) -> tuple[dict[str, str], list[str]]:
    """sha256 of every onnxruntime-web file the pages fetched; mismatches with the pins."""
    prefix = "/node_modules/onnxruntime-web/"
    sums = {
        path[len(prefix) :]: hashlib.sha256((REPO_ROOT / path.lstrip("/")).read_bytes()).hexdigest()
        for path in sorted(requested)
        if path.startswith(prefix)
    }
    wrong = [p for p, digest in sums.items() if ORT_WEB_SHA256.get(p) != digest]
    wrong += [f"{p} (not loaded)" for p in ORT_WEB_SHA256 if p not in sums]
    return sums, wrong


# ---------------------------------------------------------------- main


def measure(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Everything the report prints (and ``--json`` writes)."""
    weights = Weights.load(args.weights) if args.weights else bench_weights(args.seed)
    fixture = fixture_stream()
    rng = np.random.default_rng(args.seed + 7)
    data = {
        **write_inputs(folder, weights, fixture),
        "history": HISTORY,
        "start": start_state(weights).tolist(),
        "intents": rng.uniform(-1.0, 1.0, (INTENT_POOL, weights.shape.intent)).tolist(),
        "intent_every": INTENT_EVERY,
        "warmup": args.warmup,
        "steps": args.steps,
    }
    (folder / "data.json").write_text(json.dumps(data))
    ref = run_python(network.Stepper(weights), data)
    rows: dict[str, dict[str, Any]] = {}
    sessions, checks = ort_sessions(folder, "network"), {}
    if sessions is not None:
        small = ort_sessions(folder, "fixture")
        assert small is not None
        checks = {
            "default shape": onnx_check(weights, sessions, args.seed),
            "fixture network": onnx_check(fixture["weights"], small, args.seed),
        }
    configs = [(r, 1) for r in RUNTIMES]  # the multi-threaded rows: matrix products only
    if args.threads > 1:
        configs += [("ort-forward", args.threads), ("ort-step", args.threads)]
    data_url = "/" + (folder / "data.json").relative_to(REPO_ROOT).as_posix()
    pages, chromium, requested = run_browser(configs, data_url, args.rounds)
    for (runtime, threads), results in pages.items():
        name = f"{RUNTIMES[runtime]}, {threads} thread{'s' if threads > 1 else ''}"
        rows[name] = browser_row(results, ref, fixture["arrays"])
    rows["numpy network.Stepper (the reference)"] = python_row(ref, ref)
    if sessions is not None:
        import onnxruntime

        stepper = onnx_export.OnnxStepper(weights, sessions["step"], sessions["intent"])
        native = {
            "whole history": run_python(OrtForward(weights, sessions["forward"]), data),
            "incremental": run_python(OrtStep(weights, stepper), data),
        }
        for kind, result in native.items():
            rows[f"onnxruntime {onnxruntime.__version__} (Python, CPU, 1 thread), {kind}"] = (
                python_row(result, ref)
            )
    sums, wrong = checksums(requested)
    return {
        "rows": rows,
        "checks": checks,
        "checksums": sums,
        "checksum_mismatches": wrong,
        "chromium": chromium,
        "parameters": weights.parameter_count,
        "weights": str(args.weights) if args.weights else f"random, seed {args.seed}, unit norms",
        "load_average": os.getloadavg(),
    }


def report(out: dict[str, Any], args: argparse.Namespace) -> int:
    """Print the tables and verdicts; the exit code."""
    rows = out["rows"]
    loads = ", ".join(f"{x:.2f}" for x in out["load_average"])
    first = next(iter(rows.values()))
    print(
        f"MotorNerve step (predict + push, fed back), {out['parameters'] / 1e6:.2f} M parameters "
        f"({out['weights']}); {args.warmup} warm-up + {args.steps} timed steps x {args.rounds} "
        f"rounds; intent changes every {INTENT_EVERY} steps; Chromium {out['chromium']}, "
        f"cross-origin isolated: {str(first['isolated']).lower()}; onnxruntime-web "
        f"{ORT_WEB_VERSION}; Python {platform.python_version()}, numpy {np.__version__}; "
        f"{os.cpu_count()} CPUs, load average {loads}"
    )
    if args.steps < MIN_STEPS:
        print(f"note: {args.steps} timed steps, fewer than the issue's {MIN_STEPS}")
    problems = []
    for name, check in out["checks"].items():
        line = ", ".join(f"{k} {v:.1e}" for k, v in check.items())
        ok = max(check.values()) <= ONNX_TOL
        print(
            f"{'OK  ' if ok else 'FAIL'} ONNX (onnxruntime Python) vs numpy forward, {name}: {line}"
        )
        problems += [] if ok else [f"ONNX export, {name}"]
    if not out["checks"]:
        print("note: onnxruntime (Python) is not installed: the exports were not checked here")
    print_table(rows)
    print("\nsha256 of the onnxruntime-web files the pages loaded:")
    for path, digest in out["checksums"].items():
        print(f"  {digest}  node_modules/onnxruntime-web/{path}")
    for path in out["checksum_mismatches"]:
        print(f"CHECKSUM MISMATCH  {path} (pinned for onnxruntime-web {ORT_WEB_VERSION})")
    problems += out["checksum_mismatches"]
    browsers = {n: r for n, r in rows.items() if r["fixture_state"] is not None}
    for name, row in rows.items():
        if not parity_ok(row):
            print(f"PARITY FAIL  {name}: max abs Δ above {PARITY_TOL:g}")
            problems.append(name)
    passing = {n: statistics.median(r["samples_ms"]) for n, r in browsers.items() if parity_ok(r)}
    if len(passing) == len(browsers):
        print(f"PARITY OK  every browser runtime within {PARITY_TOL:g} of numpy on both streams")
    verdicts(rows, passing)
    return 1 if problems else 0


def verdicts(rows: dict[str, dict[str, Any]], passing: dict[str, float]) -> None:
    """The speed targets: numpy, the hand kernel (what the page runs) and the fastest
    browser runtime that passes parity, if another."""
    numpy_ms = statistics.median(rows["numpy network.Stepper (the reference)"]["samples_ms"])
    checked = [("numpy network.Stepper", numpy_ms, NUMPY_TARGET_MS)]
    hand = RUNTIMES["hand"] + ", 1 thread"
    checked.append(
        (f"browser, {hand}", statistics.median(rows[hand]["samples_ms"]), BROWSER_TARGET_MS)
    )
    if passing:
        winner = min(passing, key=passing.__getitem__)
        print(f"FASTEST in the browser, passing parity: {winner} ({passing[winner]:.3f} ms/step)")
        if winner != hand:
            checked.append((f"browser, {winner}", passing[winner], BROWSER_TARGET_MS))
    for label, ms, target in checked:
        verdict = "PASS" if ms < target else "FAIL"
        print(f"{verdict}  {label}: {ms:.3f} ms/step median (target < {target:g} ms)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", type=Path, help="a Weights .npz (default: random weights)")
    parser.add_argument("--seed", type=int, default=0, help="random weights' and intents' seed")
    parser.add_argument("--steps", type=int, default=500, help="timed steps per page (>= 300)")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2, help="pages per runtime, order rotated")
    parser.add_argument(
        "--threads", type=int, default=min(4, os.cpu_count() or 1), help="ORT-web's threaded rows"
    )
    parser.add_argument("--json", type=Path, help="write every sample and result here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=BENCH_DIR) as scratch:
        out = measure(args, Path(scratch))
    code = report(out, args)
    if args.json:
        rows = {
            n: {**r, "median_ms": statistics.median(r["samples_ms"])}
            for n, r in out["rows"].items()
        }
        args.json.write_text(json.dumps({**out, "rows": rows}, indent=1))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
