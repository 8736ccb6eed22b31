"""A picture of MotorNerve's feet, to check the live foot lock by eye: the shipped
weights walk straight ahead (the evaluation's ``straight`` stream) and one foot's sole
points (heel, ball, tip; ``motioncore.motornerve.foot_lock.sole_points``) are plotted
over four seconds, as the network makes them (dashed) and as the runtime's lock leaves
them (solid): their heights, the horizontal speed of the slowest of them with the
contact head's probability, and how far the heel has gone on the ground (flat while it is held).
``--side left`` draws the left foot (the shipped v2 lands it toe first). ``--take``
plays a held-out take instead, from its own opening as the evaluation does
(``--take bvh/reactidle/002_genuine.bvh --from 19`` shows a foot the lock lets go 23 cm
from the network's stepping back), with ``--data`` the corpus folder.

Needs matplotlib, which the project does not depend on (``pip install matplotlib``):

    .venv/bin/python bench/motornerve_feet_plot.py [--side right] \
        [--take PATH --data ../shared/data] [--from SECONDS] \
        [-o docs/screenshots/motornerve-feet.png]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from motioncore import fk  # noqa: E402
from motioncore.clip import Clip  # noqa: E402
from motioncore.motornerve import evaluate, foot_lock, network, runtime, streams  # noqa: E402
from motioncore.skeleton import canonical  # noqa: E402

FIRST_S, SECONDS = 10.0, 4.0
POINTS = ("heel", "ball", "tip")


def soles(clip: Clip, side: int) -> np.ndarray:
    """``[F, 3, 3]`` the sole points of ``clip``'s foot ``side`` (0 left, 1 right)."""
    rotations, positions = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    leg = foot_lock.legs(clip.skeleton, canonical.roles())[side]
    return foot_lock.sole_points(positions, rotations, leg)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=Path("motornerve-feet.png"))
    parser.add_argument("--side", choices=foot_lock.SIDES, default="right")
    parser.add_argument("--take", help="a held-out take (MANIFEST path) instead of the walk")
    parser.add_argument("--data", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    parser.add_argument("--from", dest="first_s", type=float, default=FIRST_S, help="seconds")
    args = parser.parse_args()
    side = foot_lock.SIDES.index(args.side)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("this picture needs matplotlib: pip install matplotlib", file=sys.stderr)
        return 2
    weights = network.Weights.load(network.SHIPPED_WEIGHTS)
    played, what = _played(weights, args.take, args.data)
    fps = played.clip.fps
    frames = slice(round(args.first_s * fps), round((args.first_s + SECONDS) * fps))
    t = np.arange(frames.start, frames.stop) / fps
    fig, ax = plt.subplots(3, 1, figsize=(11, 9), sharex=True)
    for label, clip, style in (("network", played.raw, "--"), ("locked", played.clip, "-")):
        sole = soles(clip, side)
        for i, point in enumerate(POINTS):
            ax[0].plot(t, 100 * sole[frames, i, 1], style, label=f"{label}: {point}")
        speed = np.linalg.norm(np.diff(sole[..., [0, 2]], axis=0), axis=-1) * fps
        ax[1].plot(t, speed[frames].min(axis=1), style, label=f"{label}: slowest sole point")
        heel = sole[frames, 0][:, [0, 2]]
        ax[2].plot(t, np.linalg.norm(heel - heel[0], axis=-1), style, label=f"{label}: heel")
    ax[0].axhline(0.0, color="k", lw=0.5)
    ax[0].set_ylabel("height above the floor, cm")
    ax[0].legend(ncol=2, fontsize=7)
    ax[1].set_ylabel("horizontal speed, m/s")
    ax[1].set_ylim(0.0, 2.0)
    ax[1].legend(fontsize=7, loc="upper left")
    contact = ax[1].twinx()
    contact.plot(t, played.contacts[frames, side], "k:", lw=0.8)
    contact.set_ylabel("contact head's probability (dotted)")
    ax[2].set_ylabel("on the ground from its start, m")
    ax[2].set_xlabel("time, s")
    ax[2].legend(fontsize=7)
    name = network.SHIPPED_WEIGHTS.stem
    fig.suptitle(f"{name}, {what}, the {args.side} foot: network vs live foot lock")
    fig.tight_layout()
    fig.savefig(args.output, dpi=80)
    print(f"wrote {args.output}")
    return 0


def _played(weights: network.Weights, take: str | None, data: Path) -> tuple[runtime.Played, str]:
    """The straight walk, or ``take`` played from its opening (the evaluation's held-out
    protocol), and what it is."""
    if take is None:
        return runtime.play(weights, streams.straight().commands), "a straight walk"
    recordings = [r for r in evaluate.held_out(data) if r.name == take]
    if not recordings:
        raise SystemExit(f"{take} is not a held-out take of {data}")
    stream = evaluate.recording_streams(recordings)[0]
    assert stream.opening is not None
    return runtime.play(weights, stream.commands, evaluate.history(stream.opening)), take


if __name__ == "__main__":
    sys.exit(main())
