"""The shipped MotorNerve weights (motioncore/motornerve/weights/motornerve-v2.npz): what
they were trained on, that `motornerve train` reproduces their training, and that their
own play keeps a body on the floor (measured from the played clip, not from anything the
network or the runtime computes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from motioncore import fk, measures
from motioncore.motornerve import dataset, runtime, streams
from motioncore.motornerve.network import SHIPPED_WEIGHTS, Weights
from motioncore.pfnn.dataset import licence_allows_shipping
from motioncore.skeleton import canonical
from support.corpus import manifest_rows
from support.paths import shared_data_dir

FEET = [canonical.roles().joints[r] for r in ("left_foot", "left_toe", "right_foot", "right_toe")]
REPRODUCED_EPOCHS = 2
EPOCH_TOLERANCE = {1: 1e-2, 2: 2e-2}
"""Relative tolerance of each reproduced epoch's training losses (see the test)."""


@pytest.fixture(scope="module")
def weights() -> Weights:
    return Weights.load(SHIPPED_WEIGHTS)


def _clip_path(name: str) -> str:
    """The corpus file of a sequence name (``path@speed[#mirror]/start``)."""
    return name.split("@")[0]


def test_the_weights_are_trained_on_shippable_clips_only(weights: Weights) -> None:
    assert weights.parameter_count == 2_890_244
    sequences = weights.meta["sequences"]
    used = {_clip_path(n) for split in sequences.values() for n in split}
    assert used and not any("bandai" in c or "makehuman-legacy" in c for c in used)
    if (shared_data_dir() / "MANIFEST.csv").is_file():
        rows = {r["relative_path"]: r for r in manifest_rows()}
        for clip in used:
            assert licence_allows_shipping(rows[clip])[0], clip
    takes = {s: {dataset.take_of(_clip_path(n)) for n in sequences[s]} for s in sequences}
    assert takes["test"] and not takes["test"] & takes["train"]
    assert (SHIPPED_WEIGHTS.parent / "DATA_CARD.md").is_file()


def test_train_reproduces_the_first_epochs_of_the_shipped_run(
    tmp_path: Path, shared_data: Path, weights: Weights
) -> None:
    """The whole run takes over an hour on two cores; its first epochs, same schedule,
    must give the same training losses. Bit-identical only on the CPU that trained
    them: torch and MKL pick their kernels by instruction set, and the sums' order
    moves the first epoch's mean loss by about 1e-3 of itself (measured: this machine's
    AVX-512 kernels against the shipped run's; forced to AVX2, 1.5e-4), so the
    tolerance is 1 % at epoch 1; the contact weight 0.7 made 0.6 would move it by 3 %.
    Training amplifies that difference: on another AVX-512 Xeon (2026-12-07, kernels
    pinned to AVX2) epoch 2 came out 0.45 % (reconstruction), 0.73 % (total) and
    1.5 % (contact) from the shipped run, with epoch 1 within 0.2 %; epoch 2 is held to
    2 %, under the 3 % the contact weight's change makes. The validation losses are
    left out: measured on a model whose training has diverged by then, they differed
    by 6 % at epoch 2."""
    pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")
    log = tmp_path / "train.jsonl"
    command = [sys.executable, "-m", "motioncore", "motornerve", "train", "--data"]
    command += [str(shared_data), "-o", str(tmp_path / "again.npz"), "--log", str(log)]
    command += ["--stop-after", str(REPRODUCED_EPOCHS)]
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ.copy())
    assert done.returncode == 0, done.stderr[-3000:]
    again = [json.loads(line) for line in log.read_text().splitlines()]
    shipped = weights.meta["history"][:REPRODUCED_EPOCHS]
    assert len(again) == len(shipped) == REPRODUCED_EPOCHS
    for ours, theirs in zip(again, shipped, strict=True):
        assert ours["lr"] == pytest.approx(theirs["lr"], rel=1e-9)
        for key in ("train_total", "train_reconstruction", "train_contact"):
            rel = EPOCH_TOLERANCE[ours["epoch"]]
            assert ours[key] == pytest.approx(theirs[key], rel=rel), (ours["epoch"], key)


@pytest.mark.parametrize(
    "stream",
    [streams.straight(30.0), streams.stop_go(), streams.turn(90.0)],
    ids=lambda s: s.name,
)
def test_its_own_play_keeps_the_feet_on_the_floor(weights: Weights, stream: streams.Stream) -> None:
    played = runtime.play(weights, stream.commands).clip
    positions = fk.positions(played)
    feet = positions[:, FEET, 1]
    hips = positions[:, 0, 1]
    assert np.isfinite(positions).all()
    # every second some foot point touches the floor (within 5 cm): no floating, no
    # legs folded up under a hovering body
    per_second = feet[: len(feet) // 60 * 60].reshape(-1, 60, len(FEET)).min(axis=(1, 2))
    assert per_second.max() < 0.05, per_second.round(3)
    assert feet.min() > -0.05  # nor through it
    assert hips.min() > 0.75 and hips.max() < 1.15  # upright: standing hips are ~0.95 m
    assert measures.max_joint_speed_degps(played) < 1800.0
