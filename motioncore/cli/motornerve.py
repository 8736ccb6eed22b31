"""``python -m motioncore motornerve dataset|train|evaluate|drive`` (seed 001; training
needs torch: ``pip install torch==2.13.0``).

* ``motornerve dataset --data DIR -o DATA.npz [--json]``: the permissive corpus clips
  (locomotion, interaction, idle) prepared, augmented and split by take; prints which
  files went in and why the others did not, and the minutes per action.
* ``motornerve train (--data DIR | --dataset DATA.npz) -o WEIGHTS.npz [--epochs N]
  [--teacher-epochs N] [--seed N] [--log FILE] [--json]``: prints the parameter count,
  then one line per epoch on stderr (a bar on a terminal); the history as JSON lines
  in ``--log``.
* ``motornerve evaluate --data DIR [--weights W.npz] [--interactions N] [--json]``: the
  scripted streams and the held-out clips, measured by :mod:`motioncore.measures`
  (:mod:`motioncore.motornerve.evaluate`), and the held-out takes themselves measured
  the same way (``held_out_mocap``: what the targets read on recorded motion).
* ``motornerve drive --timeline T.json [--rig CLIP.bvh] [--weights W.npz]
  [--no-foot-lock] -o OUT.bvh [--json]``: plays an intent timeline
  (:mod:`motioncore.motornerve.timeline`) on the canonical skeleton or on the rig.

Exit codes: 0 success, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motioncore import bvh, jsontext
from motioncore.errors import MotionCoreError
from motioncore.motornerve.network import SHIPPED_WEIGHTS, Weights

if TYPE_CHECKING:
    from motioncore.motornerve import dataset

EXIT_OK = 0
EXIT_INVALID = 2


def add_parsers(commands: Any) -> None:
    """Register ``motornerve`` and its sub-commands on the ``add_subparsers()`` object."""
    top = commands.add_parser("motornerve", help="intent-driven controller: data, training, play")
    sub = top.add_subparsers(dest="motornerve_command", required=True)
    build = sub.add_parser("dataset", help="build the training dataset from the corpus")
    build.add_argument("--data", type=Path, required=True, help="the corpus folder (MANIFEST.csv)")
    build.add_argument("-o", "--output", type=Path, required=True, help="dataset .npz")
    build.add_argument("--json", action="store_true", help="print the report as JSON")
    train = sub.add_parser("train", help="train the weights (needs torch)")
    source = train.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", type=Path, help="the corpus folder (MANIFEST.csv)")
    source.add_argument("--dataset", type=Path, help="a dataset .npz from `motornerve dataset`")
    train.add_argument("-o", "--output", type=Path, required=True, help="weights .npz")
    train.add_argument("--epochs", type=int, help="epochs (default: the training config's)")
    train.add_argument("--teacher-epochs", type=int, help="epochs of teacher forcing first")
    train.add_argument("--seed", type=int)
    train.add_argument("--log", type=Path, help="write the history as JSON lines here")
    train.add_argument(
        "--stop-after", type=int, metavar="N", help="stop after the schedule's first N epochs"
    )
    train.add_argument("--json", action="store_true", help="print a JSON summary")
    check = sub.add_parser("evaluate", help="scripted streams and held-out clips, measured")
    check.add_argument("--data", type=Path, required=True, help="the corpus folder")
    check.add_argument("--weights", type=Path, default=SHIPPED_WEIGHTS, help="weights .npz")
    check.add_argument("--interactions", type=int, default=50, help="interaction triggers")
    check.add_argument("--json", action="store_true", help="print JSON")
    check.add_argument(
        "--baseline",
        action="store_true",
        help="also the motion-matching baseline over the training clips, side by side",
    )
    check.add_argument(
        "--raw",
        action="store_true",
        help="also the network without the runtime's foot lock (motornerve_raw)",
    )
    play = sub.add_parser("drive", help="play an intent timeline")
    play.add_argument("--timeline", type=Path, required=True, help="intent timeline JSON")
    play.add_argument("--rig", type=Path, help="a BVH whose skeleton the result is put on")
    play.add_argument("--weights", type=Path, default=SHIPPED_WEIGHTS, help="weights .npz")
    play.add_argument("--no-foot-lock", action="store_true", help="leave planted feet free")
    play.add_argument("-o", "--output", type=Path, required=True, help="BVH to write")
    play.add_argument("--json", action="store_true", help="print the measures as JSON")


def run(args: argparse.Namespace) -> int:
    """Dispatch ``motornerve <command>``."""
    handlers = {"dataset": _dataset, "train": _train, "evaluate": _evaluate, "drive": _drive}
    try:
        return handlers[args.motornerve_command](args)
    except (MotionCoreError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID


def _bar(done: float, text: str) -> None:
    bar = "#" * round(30 * done)
    end = "" if sys.stderr.isatty() else "\n"
    print(f"\r[{bar:<30}] {text}", end=end, file=sys.stderr, flush=True)


def _built(data_dir: Path) -> tuple[dataset.Dataset, list[Any]]:
    from motioncore.motornerve import dataset

    if not (data_dir / "MANIFEST.csv").is_file():
        raise ValueError(f"{data_dir} has no MANIFEST.csv")
    sources, report = dataset.corpus_sources(data_dir)
    built = dataset.build(sources, lambda i, n, p: _bar(i / n, f"{i}/{n} {p}"))
    if sys.stderr.isatty():
        print(file=sys.stderr)
    return built, report


def _dataset(args: argparse.Namespace) -> int:
    from motioncore.motornerve import dataset

    built, report = _built(args.data)
    built.save(args.output)
    minutes = {
        s: dict(dataset.minutes_per_action(built, s)) for s in ("train", "validation", "test")
    }
    summary = {
        "output": str(args.output),
        "minutes": minutes,
        "files": [f.__dict__ for f in report],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return EXIT_OK
    used = [f for f in report if f.used]
    print(
        f"{len(used)} clips, {sum(f.seconds for f in used) / 60:.1f} min of motion → {args.output}"
    )
    for split, per in minutes.items():
        print(f"{split}: " + ", ".join(f"{a} {m:.1f} min" for a, m in per.items()))
    for f in report:
        if not f.used:
            print(f"  left out {f.path}: {f.reason}")
    return EXIT_OK


def _train(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from motioncore.motornerve import dataset, train

    data = dataset.Dataset.load(args.dataset) if args.dataset else _built(args.data)[0]
    config = train.TrainConfig()
    changes = {"epochs": args.epochs, "teacher_epochs": args.teacher_epochs, "seed": args.seed}
    config = replace(config, **{k: v for k, v in changes.items() if v is not None})
    print(f"MotorNerve: {train.parameter_count(config.shape):,} parameters", file=sys.stderr)
    log = args.log.open("w", encoding="utf-8") if args.log else None

    def progress(epoch: int, row: dict[str, float]) -> None:
        text = (
            f"epoch {epoch}/{config.epochs} rollout {row['rollout']:.0f} "
            f"train {row['train_total']:.4f} "
            f"validation {row.get('validation_total', float('nan')):.4f} "
            f"lr {row['lr']:.1e} {row['seconds']:.0f} s"
        )
        _bar(epoch / config.epochs, text)
        if log is not None:
            log.write(json.dumps(row) + "\n")
            log.flush()

    try:
        weights = train.train(data, config, progress, stop_after=args.stop_after)
    finally:
        if log is not None:
            log.close()
    if sys.stderr.isatty():
        print(file=sys.stderr)
    weights.save(args.output)
    summary = {
        "output": str(args.output),
        "parameters": weights.parameter_count,
        **weights.meta["history"][-1],
    }
    print(json.dumps(summary, indent=2) if args.json else f"weights → {args.output} ({summary})")
    return EXIT_OK


def _weights(path: Path) -> Weights:
    if not path.is_file():
        raise ValueError(f"no weights at {path}")
    return Weights.load(path)


def _evaluate(args: argparse.Namespace) -> int:
    from motioncore.motornerve import evaluate, streams

    if not (args.data / "MANIFEST.csv").is_file():
        raise ValueError(f"{args.data} has no MANIFEST.csv")
    weights = _weights(args.weights)
    recordings = evaluate.held_out(args.data)

    reference = evaluate.reference(recordings)
    players: dict[str, Any] = {"motornerve": evaluate.motornerve_player(weights)}
    if args.raw:
        players["motornerve_raw"] = evaluate.motornerve_player(weights, lock_feet=False)
    if args.baseline:
        players["motion_matching"] = evaluate.matching_player(evaluate.held_out(args.data, "train"))
    results: dict[str, dict[str, Any]] = {}
    for name, play in players.items():
        results[name] = {
            "scripted": evaluate.evaluate(
                play, streams.scripted(args.interactions), reference, lambda n: _bar(0.5, n)
            ).as_dict(),
            "held_out": evaluate.evaluate(
                play, evaluate.recording_streams(recordings), reference, lambda n: _bar(0.9, n)
            ).as_dict(),
        }
    results["held_out_mocap"] = {"held_out": evaluate.recorded(recordings)}
    if sys.stderr.isatty():
        print(file=sys.stderr)
    if args.json:
        print(json.dumps(results, indent=2, default=str))
    else:
        for name, result in results.items():
            for label, part in result.items():
                summary = ", ".join(f"{k} {_num(v)}" for k, v in part["summary"].items())
                print(f"{name} {label}: {summary}")
    return EXIT_OK


def _num(value: object) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _drive(args: argparse.Namespace) -> int:
    from motioncore.motornerve import drive, timeline

    weights = _weights(args.weights)
    planned = timeline.parse(jsontext.loads(args.timeline.read_text(encoding="utf-8")))
    rig = bvh.load(args.rig) if args.rig is not None else None
    made = drive.drive(weights, timeline.commands(planned), rig, foot_lock=not args.no_foot_lock)
    args.output.write_text(bvh.dump(made.clip), encoding="utf-8")
    report = {"output": str(args.output), **made.as_dict()}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{made.clip.num_frames} frames at {made.clip.fps:g} fps → {args.output}; foot skate "
            f"{_num(report['foot_skate_per_step_m'])} m per step"
        )
    return EXIT_OK
