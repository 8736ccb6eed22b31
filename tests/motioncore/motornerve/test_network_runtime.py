"""MotorNerve's network in numpy against torch, the step-by-step runtime against the
batch forward, the weights file, and the runtime's gate, blend and limits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motioncore import quat
from motioncore.errors import MotionCoreError
from motioncore.motornerve import intent, network, runtime, state
from motioncore.motornerve.network import HISTORY, Shape, Stepper, Weights

SMALL = Shape(channels=32, kernel=5, gru=16, intent_hidden=(32, 32), fusion=(64, 64, 32))


@pytest.fixture(scope="module")
def small() -> Weights:
    return network.random_weights(SMALL, seed=4, scale=2.0)


def _history(rng: np.random.Generator, batch: int) -> tuple[np.ndarray, np.ndarray]:
    x = rng.normal(size=(batch, HISTORY, SMALL.state)).astype(np.float32)
    i = rng.normal(size=(batch, SMALL.intent)).astype(np.float32)
    return x, i


def test_the_shipped_shape_has_about_2_8_million_parameters() -> None:
    shapes = network.parameter_shapes(Shape())
    count = sum(int(np.prod(s)) for s in shapes.values())
    assert 2_600_000 < count < 3_000_000


def test_numpy_matches_torch_on_the_same_parameters(small: Weights) -> None:
    torch = pytest.importorskip(
        "torch", reason="torch is not installed (pip install torch==2.13.0)"
    )
    from motioncore.motornerve.train import MotorNerve

    model = MotorNerve(SMALL, 0.0)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in small.params.items()})
    model.eval()
    x, i = _history(np.random.default_rng(0), 8)
    with torch.no_grad():
        delta, logits = model(torch.from_numpy(x), torch.from_numpy(i))
    ours = small.forward(x, i)
    np.testing.assert_allclose(ours[0], delta.numpy(), atol=2e-6)
    np.testing.assert_allclose(ours[1], logits.numpy(), atol=2e-6)


def test_the_stepper_matches_the_batch_forward_step_after_step(small: Weights) -> None:
    rng = np.random.default_rng(1)
    raw = rng.normal(size=(HISTORY + 10, SMALL.state))
    wants = rng.normal(size=(HISTORY + 10, SMALL.intent))
    stepper = Stepper(small)
    for t in range(HISTORY - 1):
        stepper.push(raw[t])
    for t in range(HISTORY - 1, HISTORY + 10):
        stepper.push(raw[t])
        got, contacts = stepper.predict(wants[t])
        window, wanted = small.normalise(raw[t - HISTORY + 1 : t + 1][None], wants[t][None])
        delta, logits = small.forward(window, wanted)
        np.testing.assert_allclose(got, small.next_state(raw[t], delta[0]), atol=1e-5)
        np.testing.assert_allclose(contacts, 1.0 / (1.0 + np.exp(-logits[0])), atol=1e-6)


def test_the_stepper_needs_a_full_history(small: Weights) -> None:
    stepper = Stepper(small)
    stepper.push(np.zeros(SMALL.state))
    with pytest.raises(MotionCoreError, match="15 states"):
        stepper.predict(np.zeros(SMALL.intent))


def test_weights_round_trip_through_a_file(small: Weights, tmp_path: Path) -> None:
    small.save(tmp_path / "w.npz")
    back = Weights.load(tmp_path / "w.npz")
    assert back.shape == SMALL
    assert back.params.keys() == small.params.keys()
    assert all(np.array_equal(back.params[k], v) for k, v in small.params.items())
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(MotionCoreError, match="not MotorNerve weights"):
        Weights.load(tmp_path / "bad.npz")


def test_the_gate_queues_an_interaction_until_the_character_is_slow() -> None:
    gate = runtime.Gate()
    ask = intent.make((0.0, 0.0), 0.0, 0.0, intent.ACTIONS.index("interact"), 1.0)
    given = gate.admit(ask, speed_mps=3.0)
    assert gate.queued and intent.describe(given)["action"] == "idle"
    assert given[intent.SPEED] == 0.0
    given = gate.admit(ask, speed_mps=0.2)
    assert not gate.queued and intent.describe(given)["action"] == "interact"
    fast = gate.admit(intent.make((0.0, 1.0), 40.0, 0.0, 2), speed_mps=0.0)
    assert fast[intent.SPEED] == runtime.MAX_SPEED_MPS


def test_sharp_changes_are_new_actions_big_speed_steps_and_turns() -> None:
    walk = intent.make((0.0, 1.0), 1.3)
    assert not runtime.sharp_change(walk, intent.make((0.1, 1.0), 1.4))
    assert runtime.sharp_change(walk, intent.make((0.0, 1.0), 3.0))
    assert runtime.sharp_change(walk, intent.make((1.0, 0.0), 1.3))
    assert runtime.sharp_change(walk, intent.make((0.0, 1.0), 1.3, 0.0, 3))


def test_a_play_has_a_frame_per_command_and_keeps_its_limits(small: Weights) -> None:
    walk = intent.command((0.0, 1.0), 1.3)
    commands = np.stack([walk] * 90 + [intent.command((1.0, 0.0), 3.0)] * 91)
    played = runtime.play(small, commands)
    assert played.clip.num_frames == len(commands) == len(played.given) == len(played.contacts)
    assert played.clip.fps == state.FPS
    root = played.clip.translations[:, 0][:, [0, 2]]
    np.testing.assert_allclose(root[0], 0.0)
    step = np.linalg.norm(np.diff(root[::2], axis=0), axis=-1) / state.STEP_S
    acceleration = np.abs(np.diff(step)) / state.STEP_S
    assert acceleration.max() <= runtime.MAX_ACCELERATION_MPS2 * 1.001
    assert np.all((played.contacts >= 0.0) & (played.contacts <= 1.0))


def test_a_controller_can_start_from_a_recorded_history(small: Weights) -> None:
    rng = np.random.default_rng(4)
    standing = runtime.start_state(small)
    history = standing + 0.01 * rng.standard_normal((5, state.SIZE))
    controller = runtime.Controller(small, history)
    np.testing.assert_array_equal(np.stack(controller.stepper.states[-5:]), history)
    np.testing.assert_array_equal(np.stack(controller.stepper.states[:-5]), [history[0]] * 10)
    assert len(controller.stepper.states) == HISTORY
    played = runtime.play(small, np.stack([intent.command((0.0, 1.0), 1.3)] * 4), history)
    steady = runtime.play(small, np.stack([intent.command((0.0, 1.0), 1.3)] * 4), history[-1])
    assert not np.allclose(played.raw.rotations[1], steady.raw.rotations[1])  # the past counts
    np.testing.assert_allclose(played.raw.rotations[0], steady.raw.rotations[0])


def test_a_play_from_a_recorded_history_eases_out_of_its_last_pose(small: Weights) -> None:
    """The network's first step from recorded states is a handover: the first shown
    state is the last recorded one slerped a blend step's share of the way to the
    network's (the runtime's blend on a sharp change), not the network's at once."""
    rng = np.random.default_rng(5)
    history = runtime.start_state(small) + 0.3 * rng.standard_normal((5, state.SIZE))
    history = np.stack([state.renormalised(h) for h in history])
    command = intent.command((0.0, 0.0), 0.0)  # standing, as the controller starts: no sharp change
    eased = runtime.Controller(small, history)
    abrupt = runtime.Controller(small, history)
    abrupt.blend_left_s = 0.0
    last = state.joint_rotations(history[-1])
    moved = [
        quat.angle_between(last, state.joint_rotations(c.step(command).state)).max()
        for c in (eased, abrupt)
    ]
    assert moved[1] > np.radians(5.0)  # the network's own step jumps
    np.testing.assert_allclose(moved[0], moved[1] * state.STEP_S / runtime.BLEND_S, rtol=0.05)
