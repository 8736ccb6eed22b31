"""``python -m motioncore pfnn dataset|train``: build the PFNN dataset from the corpus and
train the weights (training needs torch: ``pip install torch==2.13.0``).

* ``pfnn dataset --data DIR -o DATA.npz [--json]``: the locomotion clips of the corpus
  whose licence allows shipping weights, prepared, mirrored and split by clip;
  prints which files were used and why the others were not.
* ``pfnn train (--data DIR | --dataset DATA.npz) -o WEIGHTS.npz [--epochs N]
  [--experts K] [--blend catmull-rom|smoothstep] [--hidden N] [--seed N] [--log FILE]
  [--json]``: trains with fixed seeds; one line per epoch on stderr (a bar on a
  terminal), the history as JSON lines in ``--log``.

* ``pfnn evaluate --data DIR [--weights W.npz] [--json]``: seed 002 §5.2's measures on
  the weights' held-out test clips and, for evaluation only, on the corpus clips whose
  licence kept them out of training (Bandai Namco).
* ``pfnn generate --path "x,z;x,z;…" --speed M_PER_S [--seconds S] [--rig CLIP.bvh]
  [--weights W.npz] [--mode constant|linear|cubic] [--no-foot-lock] -o OUT.bvh
  [--json]``: walk the path (metres on the ground) at the speed; the BVH is on the
  canonical skeleton, or on ``--rig``'s skeleton (its first frame the reference pose),
  walking the path as given in metres (:mod:`motioncore.pfnn.on_rig`). The JSON
  carries ``frames``, ``fps``, ``path_rms_m``, ``foot_slide_mps`` and the other
  measures of :meth:`motioncore.pfnn.generate.Generated.as_dict` (with ``--rig``: the
  rig's own, and the canonical walk's under ``canonical``).

Exit codes as the rest of the command line: 0 success, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motioncore import bvh
from motioncore.errors import MotionCoreError
from motioncore.pfnn.network import MODES, SHIPPED_WEIGHTS, Weights
from motioncore.pfnn.phase import BLENDS

if TYPE_CHECKING:
    from motioncore.pfnn import dataset

EXIT_OK = 0
EXIT_INVALID = 2


def add_parsers(commands: Any) -> None:
    """Register ``pfnn`` and its sub-commands on the ``add_subparsers()`` object."""
    pfnn = commands.add_parser("pfnn", help="phase-functioned network: dataset, training")
    sub = pfnn.add_subparsers(dest="pfnn_command", required=True)
    build = sub.add_parser("dataset", help="build the training dataset from the corpus")
    build.add_argument("--data", type=Path, required=True, help="the corpus folder (MANIFEST.csv)")
    build.add_argument("-o", "--output", type=Path, required=True, help="dataset .npz")
    build.add_argument("--json", action="store_true", help="print the report as JSON")
    train = sub.add_parser("train", help="train the PFNN weights (needs torch)")
    source = train.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", type=Path, help="the corpus folder (MANIFEST.csv)")
    source.add_argument("--dataset", type=Path, help="a dataset .npz from `pfnn dataset`")
    train.add_argument("-o", "--output", type=Path, required=True, help="weights .npz")
    train.add_argument("--epochs", type=int, default=40)
    train.add_argument("--experts", type=int, default=4)
    train.add_argument("--blend", choices=BLENDS, default="catmull-rom")
    train.add_argument("--hidden", type=int, default=256, help="units per hidden layer")
    train.add_argument("--seed", type=int, default=2017)
    train.add_argument("--log", type=Path, help="write the history as JSON lines here")
    train.add_argument("--json", action="store_true", help="print a JSON summary")
    check = sub.add_parser("evaluate", help="held-out joint angle error and foot slide")
    check.add_argument("--data", type=Path, required=True, help="the corpus folder")
    check.add_argument("--weights", type=Path, default=SHIPPED_WEIGHTS, help="weights .npz")
    check.add_argument("--json", action="store_true", help="print JSON")
    walk = sub.add_parser("generate", help="walk a path with the PFNN")
    walk.add_argument("--path", required=True, help='ground points "x,z;x,z;…", metres')
    walk.add_argument("--speed", type=float, required=True, metavar="M_PER_S")
    walk.add_argument("--seconds", type=float, help="how long (default: to the path's end)")
    walk.add_argument("--rig", type=Path, help="a BVH whose skeleton the result is put on")
    walk.add_argument("--weights", type=Path, default=SHIPPED_WEIGHTS, help="weights .npz")
    walk.add_argument("--mode", choices=MODES, default="constant", help="runtime mode")
    walk.add_argument("--no-foot-lock", action="store_true", help="leave planted feet free")
    walk.add_argument("-o", "--output", type=Path, required=True, help="BVH to write")
    walk.add_argument("--json", action="store_true", help="print the measures as JSON")


def run(args: argparse.Namespace) -> int:
    """Dispatch ``pfnn <command>``."""
    try:
        handlers = {
            "dataset": _dataset,
            "train": _train,
            "evaluate": _evaluate,
            "generate": _generate,
        }
        return handlers[args.pfnn_command](args)
    except (MotionCoreError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID


def _built(data_dir: Path) -> tuple[dataset.Dataset, list[dataset.CorpusFile]]:
    from motioncore.pfnn import dataset

    if not (data_dir / "MANIFEST.csv").is_file():
        raise ValueError(f"{data_dir} has no MANIFEST.csv")
    clips, report = dataset.corpus_clips(data_dir)
    return dataset.build(clips), report


def _dataset(args: argparse.Namespace) -> int:
    from motioncore.pfnn import dataset

    built, report = _built(args.data)
    built.save(str(args.output))
    samples = {s: int(built.rows(s).sum()) for s in dataset.SPLITS}
    summary = {
        "output": str(args.output),
        "samples": samples,
        "files": [f.__dict__ for f in report],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        used = [f for f in report if f.used]
        print(f"{len(used)} clips, {sum(f.seconds for f in used):.1f} s of motion → {args.output}")
        print("samples: " + ", ".join(f"{k} {v}" for k, v in samples.items()))
        for f in report:
            if not f.used:
                print(f"  left out {f.path}: {f.reason}")
    return EXIT_OK


def _train(args: argparse.Namespace) -> int:
    from motioncore.pfnn import dataset, train

    data = dataset.Dataset.load(str(args.dataset)) if args.dataset else _built(args.data)[0]
    config = train.TrainConfig(
        experts=args.experts,
        blend=args.blend,
        hidden=args.hidden,
        epochs=args.epochs,
        seed=args.seed,
    )
    log = args.log.open("w", encoding="utf-8") if args.log else None

    def progress(epoch: int, row: dict[str, float]) -> None:
        done = epoch / config.epochs
        bar = "#" * round(30 * done)
        print(
            f"\r[{bar:<30}] epoch {epoch}/{config.epochs} train L1 {row['train_l1']:.4f} "
            f"validation L1 {row['validation_l1']:.4f} lr {row['lr']:.1e} "
            f"{row['seconds']:.0f} s",
            end="" if sys.stderr.isatty() else "\n",
            file=sys.stderr,
        )
        if log is not None:
            log.write(json.dumps(row) + "\n")
            log.flush()

    try:
        weights = train.train(data, config, progress)
    finally:
        if log is not None:
            log.close()
    if sys.stderr.isatty():
        print(file=sys.stderr)
    weights.save(args.output)
    last = weights.meta["history"][-1]
    summary = {"output": str(args.output), "bytes": weights.nbytes, **last}
    print(json.dumps(summary, indent=2) if args.json else f"weights → {args.output} ({last})")
    return EXIT_OK


def _generate(args: argparse.Namespace) -> int:
    from motioncore.pfnn import generate, on_rig

    if not args.weights.is_file():
        raise ValueError(f"no weights at {args.weights}")
    weights = Weights.load(args.weights)
    path = generate.Path.parse(args.path)
    lock = not args.no_foot_lock
    measured: dict[str, Any]
    if args.rig is not None:
        rig = bvh.load(args.rig)
        on = on_rig.walk(
            weights, path, args.speed, rig, seconds=args.seconds, mode=args.mode, foot_lock=lock
        )
        clip, measured = on.clip, on.as_dict()
    else:
        made = generate.generate(
            weights, path, args.speed, seconds=args.seconds, mode=args.mode, foot_lock=lock
        )
        clip, measured = made.clip, dict(made.as_dict())
    args.output.write_text(bvh.dump(clip), encoding="utf-8")
    report = {"output": str(args.output), **measured}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{clip.num_frames} frames at {clip.fps:g} fps → {args.output}; "
            f"path RMS {measured['path_rms_m']:.3f} m, "
            f"foot slide {_num(measured['foot_slide_mps'])} m/s"
        )
    return EXIT_OK


def _num(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, int | float) else "n/a"


def _evaluate(args: argparse.Namespace) -> int:
    from motioncore.pfnn import dataset, evaluate

    if not args.weights.is_file():
        raise ValueError(f"no weights at {args.weights}")
    if not (args.data / "MANIFEST.csv").is_file():
        raise ValueError(f"{args.data} has no MANIFEST.csv")
    weights = Weights.load(args.weights)
    held_out = sorted({name.split("#")[0] for name in weights.meta["clips"]["test"]})
    missing = [name for name in held_out if not (args.data / name).is_file()]
    if missing:
        raise ValueError(
            f"the held-out clip {missing[0]} is not in {args.data}"
            + (f" (nor {len(missing) - 1} more)" if len(missing) > 1 else "")
        )
    test: dict[str, Any] = {}
    for name in held_out:
        motion = dataset.prepare(bvh.load(args.data / name))
        test[name], test[f"{name}#mirror"] = motion, dataset.mirror(motion)
    others, _ = dataset.corpus_clips(args.data, shippable=False)
    results: dict[str, dict[str, Any]] = {
        "test": evaluate.evaluate(weights, test).as_dict(),
        "not_shippable": evaluate.evaluate(
            weights, {n: dataset.prepare(c) for n, c in others.items()}
        ).as_dict(),
    }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for label, r in results.items():
            print(
                f"{label}: {len(r['clips'])} clips, {r['samples']} samples; joint angle error "
                f"{r['joint_angle_error_deg']:.2f}° (repeating the pose: "
                f"{r['repeat_pose_error_deg']:.2f}°), foot slide {r['foot_slide_mps']:.3f} m/s "
                f"(the data's own: {r['data_foot_slide_mps']:.3f} m/s)"
            )
    return EXIT_OK
