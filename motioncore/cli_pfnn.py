"""``python -m motioncore pfnn dataset|train``: build the PFNN dataset from the corpus and
train the weights (training needs torch: ``pip install torch==2.13.0``).

* ``pfnn dataset --data DIR -o DATA.npz [--json]``: the locomotion clips of the corpus
  whose licence allows shipping weights, prepared, mirrored and split by clip;
  prints which files were used and why the others were not.
* ``pfnn train (--data DIR | --dataset DATA.npz) -o WEIGHTS.npz [--epochs N]
  [--experts K] [--blend catmull-rom|smoothstep] [--hidden N] [--seed N] [--log FILE]
  [--json]``: trains with fixed seeds; one line per epoch on stderr (a bar on a
  terminal), the history as JSON lines in ``--log``.

Exit codes as the rest of the command line: 0 success, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from motioncore.errors import MotionCoreError
from motioncore.pfnn import dataset
from motioncore.pfnn.phase import BLENDS

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


def run(args: argparse.Namespace) -> int:
    """Dispatch ``pfnn <command>``."""
    try:
        if args.pfnn_command == "dataset":
            return _dataset(args)
        return _train(args)
    except (MotionCoreError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID


def _built(data_dir: Path) -> tuple[dataset.Dataset, list[dataset.CorpusFile]]:
    if not (data_dir / "MANIFEST.csv").is_file():
        raise ValueError(f"{data_dir} has no MANIFEST.csv")
    clips, report = dataset.corpus_clips(data_dir)
    return dataset.build(clips), report


def _dataset(args: argparse.Namespace) -> int:
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
    from motioncore.pfnn import train

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
