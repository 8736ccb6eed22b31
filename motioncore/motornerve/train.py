"""Training MotorNerve with torch (seed 001 §2.3, §3.3).

* **Windows** (:mod:`motioncore.motornerve.windows`): a training window is
  :data:`~motioncore.motornerve.network.HISTORY` states at 30 Hz (every other 60 Hz
  frame) and the next ``rollout`` states; the intent of each step is the one at the
  frame it predicts from. Each window's heading frame is turned by a random angle within
  ±:data:`ROTATION_DEG` (the seed's rotation augmentation: heading-frame features are
  what a rotation of the world changes). Windows are drawn so that each action (of the
  intent the first step is given) has at least :attr:`TrainConfig.min_action_share` of
  them (:func:`~motioncore.motornerve.windows.probabilities`): drawn as they come,
  interactions would be 6 % of the windows and running under 1 %.
* **Losses** (weights :data:`LOSS_WEIGHTS`: reconstruction 1.0, velocity 0.3, contact
  0.7): reconstruction = mean squared error of the predicted state (normalised by the
  state deviations); velocity = of the predicted change (normalised by the change
  deviations); contact = binary cross-entropy of the contact head plus
  :data:`FOOT_SPEED_WEIGHT` times the mean squared horizontal speed (m/s) of the ankle
  and toe of each foot the data has planted, from the predicted poses by forward
  kinematics of the canonical leg. The seed's squared errors become Huber's beyond one
  deviation (:attr:`TrainConfig.huber`): the corpus keeps some capture and retarget
  glitches (a forearm's twist flipping when the arm is straight), whose squared errors
  were half of the loss and steered every step; the typical frame learns the same.
* **Schedule**: AdamW (1e-3), cosine annealing to 0 over the epochs, batch 64; the first
  ``teacher_epochs`` predict one step from true history (teacher forcing), the rest
  roll ``rollout`` steps out, each step's input being the model's own prediction with a
  probability that rises linearly to 1 (scheduled sampling). Dropout 0.1 on the GRU's
  output state. Fixed seeds and deterministic algorithms.
* **History noise**: the true history the network is given (not its targets) gets
  Gaussian noise of :attr:`TrainConfig.history_noise` state deviations per feature, so
  that it learns to bring a perturbed pose back towards the data instead of carrying
  the error on (without it, 4 s of play from real walking history lifted the feet
  0.3 m off the floor).

The result is :class:`motioncore.motornerve.network.Weights` (numpy), so nothing after
training needs torch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

from motioncore.motornerve import intent, state, windows
from motioncore.motornerve.contact_loss import LegKinematics, foot_speed_sq
from motioncore.motornerve.dataset import Dataset
from motioncore.motornerve.network import HISTORY, Shape, Weights

ROTATION_DEG = 10.0
LOSS_WEIGHTS = {"reconstruction": 1.0, "velocity": 0.3, "contact": 0.7}
FOOT_SPEED_WEIGHT = 0.1
"""Weight of the planted feet's squared speed ((m/s)²) inside the contact loss."""


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters; an epoch is ``windows_per_epoch`` windows (teacher forcing) or
    ``rollout_windows_per_epoch`` (rolled out, each ``rollout`` times dearer) drawn afresh
    from the training sequences: the corpus holds far more windows than a CPU can see
    each epoch. ``huber``: the regression losses' squared errors become Huber's beyond
    that many deviations (``None``: plain squared errors). ``history_noise``: the
    deviation of the noise added to the given history (module docstring)."""

    shape: Shape = field(default_factory=Shape)
    epochs: int = 60
    teacher_epochs: int = 20
    rollout: int = 15
    windows_per_epoch: int = 16384
    rollout_windows_per_epoch: int = 2048
    validation_windows: int = 512
    batch: int = 64
    lr: float = 1e-3
    weight_decay: float = 1e-2
    gru_dropout: float = 0.1
    clip_norm: float = 1.0
    huber: float | None = 1.0
    history_noise: float = 0.1
    min_action_share: float = 0.1
    seed: int = 2026
    threads: int = 2


class MotorNerve(torch.nn.Module):
    """The network of :mod:`motioncore.motornerve.network`, PyTorch names."""

    def __init__(self, shape: Shape, gru_dropout: float) -> None:
        super().__init__()
        c, k, g = shape.channels, shape.kernel, shape.gru
        self.conv1 = torch.nn.Conv1d(shape.state, c, k)
        self.conv2 = torch.nn.Conv1d(c, c, k)
        self.gru = torch.nn.GRU(c, g, batch_first=True, bidirectional=True)
        a, b = shape.intent_hidden
        f1, f2, f3 = shape.fusion
        elu = torch.nn.ELU
        self.intent = torch.nn.Sequential(
            torch.nn.Linear(shape.intent, a), elu(), torch.nn.Linear(a, b), elu(),
            torch.nn.Linear(b, 256), elu(),
        )  # fmt: skip
        self.fusion = torch.nn.Sequential(
            torch.nn.Linear(2 * g + 256, f1), elu(), torch.nn.Linear(f1, f2), elu(),
            torch.nn.Linear(f2, f3), elu(),
        )  # fmt: skip
        self.motion = torch.nn.Linear(f3, shape.state)
        self.contact = torch.nn.Linear(f3, 2)
        self.dropout = torch.nn.Dropout(gru_dropout)

    def forward(
        self, history: torch.Tensor, intents: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.nn.functional.elu(self.conv1(history.transpose(1, 2)))
        x = torch.nn.functional.elu(self.conv2(x))
        _, last = self.gru(x.transpose(1, 2))  # [2, B, G]: forward's last, backward's last
        motion = self.dropout(torch.cat([last[0], last[1]], dim=-1))
        h = self.fusion(torch.cat([motion, self.intent(intents)], dim=-1))
        out: tuple[torch.Tensor, torch.Tensor] = (self.motion(h), self.contact(h))
        return out


Progress = Callable[[int, dict[str, float]], None]


class _Trainer:
    def __init__(self, data: Dataset, config: TrainConfig) -> None:
        self.data, self.config = data, config
        train_starts = windows.starts(data, "train", config.rollout)
        if train_starts.size == 0:
            raise ValueError("no training window: the training clips are too short")
        self.train_starts = train_starts
        self.train_p = windows.probabilities(data, train_starts, config.min_action_share)
        self.validation_starts = windows.starts(data, "validation", config.rollout)
        step = state.STEP_FRAMES
        following = (
            data.states[train_starts + step * HISTORY]
            - data.states[train_starts + step * (HISTORY - 1)]
        )
        self.change_std = np.where(following.std(axis=0) > 1e-6, following.std(axis=0), 1.0)
        if config.shape.residual:
            self.output_mean, self.output_std = following.mean(axis=0), self.change_std
        else:
            self.output_mean, self.output_std = data.state_mean, data.state_std
        self.norm = {
            k: torch.tensor(v, dtype=torch.float32)
            for k, v in {
                "state_mean": data.state_mean,
                "state_std": data.state_std,
                "intent_mean": data.intent_mean,
                "intent_std": data.intent_std,
                "output_mean": self.output_mean,
                "output_std": self.output_std,
                "change_std": self.change_std,
            }.items()
        }
        self.leg = LegKinematics()

    def error(self, normalised: torch.Tensor) -> torch.Tensor:
        """The mean of the squared errors, or with :attr:`TrainConfig.huber` of their
        Huber loss (quadratic within that many deviations, linear beyond)."""
        if self.config.huber is None:
            return torch.mean(normalised**2)
        zero = torch.zeros_like(normalised)
        delta = self.config.huber
        return 2.0 * torch.nn.functional.huber_loss(normalised, zero, delta=delta)

    def batch(
        self, starts: NDArray[np.int64], steps: int, rng: np.random.Generator | None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        step = state.STEP_FRAMES
        frames = starts[:, None] + step * np.arange(HISTORY + steps)[None]
        states = self.data.states[frames]
        intents = self.data.intents[frames]
        if rng is not None:
            angle = np.radians(rng.uniform(-ROTATION_DEG, ROTATION_DEG, len(starts)))
            states, intents = windows.turned(states, intents, angle)
        feet = self.data.contacts[frames]
        s, i, f = (torch.tensor(a, dtype=torch.float32) for a in (states, intents, feet))
        return s, i, f

    def losses(
        self, model: MotorNerve, states: torch.Tensor, intents: torch.Tensor, feet: torch.Tensor,
        steps: int, own_share: float, rng: torch.Generator | None,
    ) -> dict[str, torch.Tensor]:  # fmt: skip
        n = self.norm
        history = states[:, :HISTORY]
        if self.config.history_noise > 0.0 and rng is not None:
            noise = torch.randn(history.shape, generator=rng) * self.config.history_noise
            history = history + noise * n["state_std"]
        totals = {k: torch.zeros(()) for k in ("reconstruction", "velocity", "contact")}
        medians: list[torch.Tensor] = []
        for k in range(steps):
            last = history[:, -1]
            normed = (history - n["state_mean"]) / n["state_std"]
            wanted = (intents[:, HISTORY - 1 + k] - n["intent_mean"]) / n["intent_std"]
            delta, logits = model(normed, wanted)
            predicted = delta * n["output_std"] + n["output_mean"]
            if self.config.shape.residual:
                predicted = predicted + last
            true = states[:, HISTORY + k]
            true_last = states[:, HISTORY - 1 + k]
            totals["reconstruction"] = totals["reconstruction"] + self.error(
                (predicted - true) / n["state_std"]
            )
            velocity_error = ((predicted - last) - (true - true_last)) / n["change_std"]
            totals["velocity"] = totals["velocity"] + self.error(velocity_error)
            medians.append(torch.median(torch.mean(velocity_error**2, dim=-1)))
            planted = feet[:, HISTORY + k]
            bce = torch.nn.functional.binary_cross_entropy_with_logits(logits, planted)
            speed = foot_speed_sq(self.leg, last, predicted)
            weights = planted.repeat_interleave(2, dim=-1)
            slide = torch.sum(speed * weights) / weights.sum().clamp_min(1.0)
            totals["contact"] = totals["contact"] + bce + FOOT_SPEED_WEIGHT * slide
            fed = true
            if own_share > 0.0 and rng is not None:
                own = torch.rand(len(states), 1, generator=rng) < own_share
                fed = torch.where(own, predicted, true)
            history = torch.cat([history[:, 1:], fed.unsqueeze(1)], dim=1)
        out = {k: v / steps for k, v in totals.items()}
        out["velocity_median"] = torch.stack(medians).mean().detach()
        out["total"] = sum((LOSS_WEIGHTS[k] * out[k] for k in LOSS_WEIGHTS), torch.zeros(()))
        return out


def standing_state(data: Dataset) -> NDArray[np.float64]:
    """A typical standing state of the training data (where a played character starts):
    of the training frames whose intent is ``idle`` and whose root is still (slower
    than 5 cm/s), the one nearest to their mean (normalised units).

    Only the standing of sequences that also move (walk, run or interact) counts while
    there is any: the network keeps the carriage it starts in, and a performer who only
    stands (ReActIdle's rig has no hands, toes or head of its own) would lend a walk
    still hands and head, which no walking mocap has."""
    idle = np.argmax(data.intents[:, intent.ACTION], axis=-1) == intent.ACTIONS.index("idle")
    rows = np.zeros(len(data.states), dtype=bool)
    moving = np.zeros(len(data.states), dtype=bool)
    for i in data.sequences("train"):
        rows[data.frames_of(i)] = True
        moving[data.frames_of(i)] = not idle[data.frames_of(i)].all()
    still = np.linalg.norm(data.states[:, state.VELOCITY], axis=-1) < 0.05
    candidates = np.flatnonzero(rows & idle & still & moving)
    if candidates.size == 0:
        candidates = np.flatnonzero(rows & idle & still)
    if candidates.size == 0:
        candidates = np.flatnonzero(rows)
    normed = (data.states[candidates] - data.state_mean) / data.state_std
    best = candidates[np.argmin(np.linalg.norm(normed - normed.mean(axis=0), axis=-1))]
    return np.asarray(data.states[best], dtype=np.float64)


def parameter_count(shape: Shape | None = None) -> int:
    """Parameters of the network of ``shape`` (default: the shipped one's)."""
    return sum(p.numel() for p in MotorNerve(shape or Shape(), 0.0).parameters())


def train(
    data: Dataset,
    config: TrainConfig = TrainConfig(),
    progress: Progress | None = None,
    stop_after: int | None = None,
) -> Weights:
    """Train on ``data``'s training split (module docstring); after every epoch
    ``progress(epoch, row)`` gets the epoch's mean losses, the validation losses of a
    full ``rollout`` on its own predictions, the learning rate and the seconds so far.
    ``stop_after``: stop after that many epochs of ``config``'s schedule (the first
    epochs of a full run, to check that a run reproduces)."""
    with _torch_settings(config):
        return _fit(data, config, progress, stop_after or config.epochs)


@contextmanager
def _torch_settings(config: TrainConfig) -> Iterator[None]:
    """Seeds, threads, deterministic algorithms and subnormal floats flushed to zero
    (subnormals in the GRU made epochs 3x slower) while training; the process's own
    settings back afterwards (flushing is process-wide: hypothesis, for one, refuses to
    run under it)."""
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    torch.use_deterministic_algorithms(True)
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)
        torch.use_deterministic_algorithms(deterministic)
        torch.set_num_threads(threads)


def _fit(data: Dataset, config: TrainConfig, progress: Progress | None, stop: int) -> Weights:
    trainer = _Trainer(data, config)
    model = MotorNerve(config.shape, config.gru_dropout)
    optimiser = torch.optim.AdamW(
        model.parameters(), lr=config.lr, weight_decay=config.weight_decay
    )
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=config.epochs)
    rng = np.random.default_rng(config.seed)
    coin = torch.Generator().manual_seed(config.seed)
    check = np.random.default_rng(config.seed + 1)
    validation = trainer.validation_starts
    if validation.size > config.validation_windows:
        validation = np.sort(check.choice(validation, config.validation_windows, replace=False))
    history: list[dict[str, float]] = []
    started = time.perf_counter()
    for epoch in range(min(stop, config.epochs)):
        teacher = epoch < config.teacher_epochs
        steps = 1 if teacher else config.rollout
        rolled = config.epochs - config.teacher_epochs
        own_share = (
            0.0 if teacher else min(1.0, (epoch - config.teacher_epochs + 1) / max(rolled / 2, 1))
        )
        wanted = config.windows_per_epoch if teacher else config.rollout_windows_per_epoch
        count = min(wanted, int(np.count_nonzero(trainer.train_p)))
        chosen = rng.choice(trainer.train_starts, count, replace=False, p=trainer.train_p)
        model.train()
        sums: dict[str, float] = {}
        for first in range(0, count, config.batch):
            states, intents, feet = trainer.batch(chosen[first : first + config.batch], steps, rng)
            losses = trainer.losses(model, states, intents, feet, steps, own_share, coin)
            optimiser.zero_grad()
            losses["total"].backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip_norm)
            optimiser.step()
            for k, v in losses.items():
                sums[k] = sums.get(k, 0.0) + float(v.detach()) * len(states)
        row: dict[str, float] = {"epoch": epoch + 1, "rollout": steps, "own_share": own_share}
        row |= {f"train_{k}": v / count for k, v in sums.items()}
        row |= {f"validation_{k}": v for k, v in _validate(trainer, model, validation).items()}
        row |= {"lr": optimiser.param_groups[0]["lr"], "seconds": time.perf_counter() - started}
        history.append(row)
        schedule.step()
        if progress is not None:
            progress(epoch + 1, row)
    return _weights(model, trainer, config, history)


def _validate(trainer: _Trainer, model: MotorNerve, starts: NDArray[np.int64]) -> dict[str, float]:
    if starts.size == 0:
        return {}
    model.eval()
    steps = trainer.config.rollout
    sums: dict[str, float] = {}
    with torch.no_grad():
        for first in range(0, len(starts), 256):
            states, intents, feet = trainer.batch(starts[first : first + 256], steps, None)
            for k, v in trainer.losses(model, states, intents, feet, steps, 1.0, None).items():
                sums[k] = sums.get(k, 0.0) + float(v) * len(states)
    return {k: v / len(starts) for k, v in sums.items()}


def _weights(
    model: MotorNerve, trainer: _Trainer, config: TrainConfig, history: list[dict[str, float]]
) -> Weights:
    data = trainer.data
    params = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    meta: dict[str, Any] = {
        "config": asdict(config),
        "history": history,
        "parameters": sum(int(p.size) for p in params.values()),
        "sequences": {
            s: [data.names[i] for i in data.sequences(s)] for s in ("train", "validation", "test")
        },
        "torch": torch.__version__,
        "start_state": standing_state(data).tolist(),
    }
    f32 = np.float32
    return Weights(
        params,
        data.state_mean.astype(f32),
        data.state_std.astype(f32),
        data.intent_mean.astype(f32),
        data.intent_std.astype(f32),
        trainer.output_mean.astype(f32),
        trainer.output_std.astype(f32),
        config.shape,
        meta,
    )
