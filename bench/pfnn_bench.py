"""PFNN runtime speed and memory: the numpy runtime's three modes against a torch forward
of the same model, per frame, on this machine.

The shipped weights (``motioncore/pfnn/weights/pfnn-v1.npz``: 124 → 256 → 256 → 133, 4
experts) run one frame at a time, as a game loop does. Inputs are the training
statistics' mean plus Gaussian noise of their deviation (the network's real input
range); phases are uniform.

* numpy ``constant`` / ``linear`` / ``cubic`` (:class:`motioncore.pfnn.network.Runtime`),
  one ``step`` per frame;
* the whole generation loop in constant mode (terrain, features, predict, integrate),
  per frame, from a 30 s walk;
* torch (the training model, ``PhaseFunctionedNetwork`` with the same weights, eval
  mode, ``no_grad``): batch 1 per frame, the same work, the reference.

Reported: median and p95 ms per frame, and the bytes of weights each holds (the
original PFNN, 512 units wide: about 10 MB cubic, 120 MB precomputed).

    python bench/pfnn_bench.py [--frames 2000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from motioncore.pfnn import generate as gen  # noqa: E402
from motioncore.pfnn.network import (  # noqa: E402
    MODES,
    SHIPPED_WEIGHTS,
    Runtime,
    Weights,
)
from motioncore.pfnn.phase import coefficients  # noqa: E402

TARGET_MS = 1.0


def _quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def _inputs(weights: Weights, frames: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    x = (
        weights.input_mean
        + rng.standard_normal((frames, len(weights.input_mean))) * weights.input_std
    )
    return x.astype(np.float32), rng.uniform(0.0, 2.0 * np.pi, frames)


def numpy_times(weights: Weights, mode: str, x: np.ndarray, phase: np.ndarray) -> list[float]:
    runtime = Runtime(weights, mode)  # type: ignore[arg-type]
    for i in range(50):
        runtime.step(x[i], phase[i])
    out = []
    for i in range(len(x)):
        t = time.perf_counter()
        runtime.step(x[i], phase[i])
        out.append((time.perf_counter() - t) * 1000.0)
    return out


def torch_times(
    weights: Weights, x: np.ndarray, phase: np.ndarray
) -> tuple[list[float], int] | None:
    try:
        import torch

        from motioncore.pfnn.train import PhaseFunctionedNetwork, TrainConfig
    except ImportError:
        return None
    torch.set_num_threads(1)
    config = TrainConfig(experts=weights.experts, blend=weights.blend, hidden=weights.sizes[1])
    net = PhaseFunctionedNetwork(weights.sizes, config).eval()
    with torch.no_grad():
        for layer, (w, b) in zip(net.layers, weights.layers, strict=True):
            layer.weight.copy_(torch.from_numpy(w))  # type: ignore[operator]
            layer.bias.copy_(torch.from_numpy(b))  # type: ignore[operator]
    mean, std = torch.from_numpy(weights.input_mean), torch.from_numpy(weights.input_std)
    out_mean, out_std = torch.from_numpy(weights.output_mean), torch.from_numpy(weights.output_std)
    c = torch.from_numpy(coefficients(phase, weights.experts, weights.blend).astype(np.float32))
    xs = torch.from_numpy(x)
    samples = []
    with torch.no_grad():
        for i in range(50):
            net((xs[i : i + 1] - mean) / std, c[i : i + 1])
        for i in range(len(x)):
            t = time.perf_counter()
            y = net((xs[i : i + 1] - mean) / std, c[i : i + 1]) * out_std + out_mean
            y.numpy()
            samples.append((time.perf_counter() - t) * 1000.0)
    params = sum(p.numel() * p.element_size() for p in net.parameters())
    return samples, params


def generation_times(weights: Weights) -> tuple[float, float]:
    path = gen.Path.of([[0.0, 0.0], [0.0, 40.0]])
    t = time.perf_counter()
    out = gen.generate(weights, path, 1.3, seconds=30.0, foot_lock=False)
    loop_ms = (time.perf_counter() - t) * 1000.0 / out.clip.num_frames
    t = time.perf_counter()
    gen.generate(weights, path, 1.3, seconds=30.0, foot_lock=True)
    with_lock_ms = (time.perf_counter() - t) * 1000.0 / out.clip.num_frames
    return loop_ms, with_lock_ms


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=2000)
    args = parser.parse_args()
    weights = Weights.load(SHIPPED_WEIGHTS)
    x, phase = _inputs(weights, args.frames)
    print(
        f"PFNN {weights.sizes}, {weights.experts} experts ({weights.blend}), {args.frames} frames"
    )
    rows = {
        mode: (_quantiles(numpy_times(weights, mode, x, phase)), Runtime(weights, mode).nbytes)
        for mode in MODES
    }
    reference = torch_times(weights, x, phase)
    print("| runtime | median ms/frame | p95 | weights held | torch/this (median) |")
    print("|---|---:|---:|---:|---:|")
    torch_median = _quantiles(reference[0])[0] if reference else float("nan")
    for mode, ((median, p95), nbytes) in rows.items():
        print(
            f"| numpy {mode} | {median:.3f} | {p95:.3f} | {nbytes / 2**20:.1f} MiB | "
            f"{torch_median / median:.2f} |"
        )
    if reference:
        (median, p95), nbytes = _quantiles(reference[0]), reference[1]
        label = f"torch {__import__('torch').__version__}, batch 1, 1 thread"
        print(f"| {label} | {median:.3f} | {p95:.3f} | {nbytes / 2**20:.1f} MiB | 1.00 |")
    else:
        print("| torch | not installed | | | |")
    loop_ms, with_lock_ms = generation_times(weights)
    print(
        f"\nwhole generation loop, constant mode: {loop_ms:.3f} ms/frame "
        f"({with_lock_ms:.3f} ms/frame with the foot lock pass)"
    )
    constant = rows["constant"][0][0]
    verdict = "PASS" if constant < TARGET_MS else "FAIL"
    print(f"{verdict}  numpy constant mode < {TARGET_MS} ms per frame ({constant:.3f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
