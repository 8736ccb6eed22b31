"""Command line for batch users: ``python -m motioncore validate|clean|info``.

* ``validate FILE [--json]``: exit 0 when the file is valid, 2 when it is not; the
  JSON carries the validation report, or ``error.line``, ``error.column`` and
  ``error.message``.
* ``clean IN -o OUT [--fps N] [--json]``: resample, repair, smooth and remove foot
  skate; writes the cleaned BVH in the source's layout and prints the cleaning
  report. A progress bar goes to stderr when it is a terminal.
* ``info FILE``: a short human-readable summary.
* ``analyze`` and ``transition``: see :mod:`motioncore.cli.analysis`.
* ``pfnn dataset|train|evaluate|generate``: see :mod:`motioncore.cli.pfnn`.
* ``laban SCORE -o OUT.bvh``: see :mod:`motioncore.cli.laban`.
* ``motornerve dataset|train|evaluate|drive``: see :mod:`motioncore.cli.motornerve`.

Exit codes: 0 success, 2 invalid input (bad file or bad arguments), 1 anything
else (a bug: reported with a one-line message).

The subcommand modules import what needs scipy (analysis, transitions, the networks'
datasets, score synthesis) inside the commands that use it, so that building the
parser, ``--help``, ``validate`` and ``info`` start in a fraction of a second.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from motioncore import bvh
from motioncore.bvh import report
from motioncore.cli import analysis as cli_analysis
from motioncore.cli import laban as cli_laban
from motioncore.cli import motornerve as cli_motornerve
from motioncore.cli import pfnn as cli_pfnn
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError

EXIT_OK = 0
EXIT_INVALID = 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    handler = {
        "validate": _validate,
        "clean": _clean,
        "info": _info,
        "analyze": cli_analysis.analyze,
        "transition": cli_analysis.transition_command,
        "sequence": cli_analysis.sequence_command,
        "pfnn": cli_pfnn.run,
        "laban": cli_laban.run,
        "motornerve": cli_motornerve.run,
    }[args.command]
    return handler(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m motioncore", description=__doc__.split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    validate = commands.add_parser("validate", help="check a BVH file and print its report")
    _add_load_options(validate)
    validate.add_argument("--json", action="store_true", help="print JSON")
    clean = commands.add_parser("clean", help="clean a BVH file (skate, noise, resampling)")
    _add_load_options(clean)
    clean.add_argument("-o", "--output", required=True, type=Path, help="cleaned BVH path")
    clean.add_argument("--fps", type=float, default=None, help="resample to this frame rate")
    clean.add_argument(
        "--smooth",
        choices=["none", "savgol", "butterworth"],
        default="none",
        help="low-pass filter the motion (default: none)",
    )
    clean.add_argument(
        "--speed-threshold",
        type=float,
        default=None,
        metavar="M_PER_S",
        help="a fixed foot contact speed, m/s, instead of the body-scaled thresholds "
        "(seed 002 §3.2 says 0.08; see docs/motioncore.md for why it is not the default)",
    )
    clean.add_argument("--no-outliers", action="store_true", help="skip the 3-sigma repair")
    clean.add_argument("--no-footskate", action="store_true", help="skip the foot-skate cleanup")
    clean.add_argument("--json", action="store_true", help="print the cleaning report as JSON")
    info = commands.add_parser("info", help="print a short summary of a BVH file")
    _add_load_options(info)
    cli_analysis.add_parsers(commands)
    cli_pfnn.add_parsers(commands)
    cli_laban.add_parser(commands)
    cli_motornerve.add_parsers(commands)
    return parser


def _add_load_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="a .bvh file")
    parser.add_argument(
        "--unit", choices=["m", "dm", "cm", "mm", "inch", "cmu"], help="override the unit guess"
    )
    parser.add_argument("--up", choices=["Y", "Z"], help="override the up-axis guess")
    parser.add_argument(
        "--position-mode",
        choices=["add", "replace"],
        help="override how position channels combine with OFFSETs",
    )
    parser.add_argument(
        "--frame-count",
        choices=["error", "warn"],
        default="error",
        help="what a wrong 'Frames:' count does (default: error)",
    )


def _load(args: argparse.Namespace) -> Clip:
    return bvh.load(
        args.file,
        unit=args.unit,
        up_axis=args.up,
        position_mode=args.position_mode,
        frame_count=args.frame_count,
    )


def _print_json(payload: dict[str, Any], out: TextIO = sys.stdout) -> None:
    json.dump(payload, out, indent=2, default=_json_default)
    out.write("\n")


def _json_default(value: object) -> object:
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"not JSON-able: {type(value).__name__}")


def _fail(args: argparse.Namespace, error: MotionCoreError) -> int:
    as_dict = (
        error.as_dict()
        if hasattr(error, "as_dict")
        else {"line": 0, "column": 0, "message": str(error)}
    )
    if getattr(args, "json", False):
        _print_json({"valid": False, "file": str(args.file), "error": as_dict})
    else:
        print(f"{args.file}: {error}", file=sys.stderr)
    return EXIT_INVALID


def _validate(args: argparse.Namespace) -> int:
    try:
        clip = _load(args)
    except MotionCoreError as error:
        return _fail(args, error)
    result = report.validation_report(clip)
    if args.json:
        _print_json({"valid": True, "file": str(args.file), "report": result})
    else:
        print(f"{args.file}: valid")
        _print_summary(result)
    return EXIT_OK


def _info(args: argparse.Namespace) -> int:
    try:
        clip = _load(args)
    except MotionCoreError as error:
        return _fail(args, error)
    print(args.file)
    _print_summary(report.validation_report(clip))
    return EXIT_OK


def _print_summary(result: dict[str, Any]) -> None:
    conventions = result["conventions"]
    unit, up = conventions["unit"], conventions["up_axis"]
    roles = result["roles"]
    lines = [
        f"  joints       {result['joints']} (+{result['end_sites']} end sites), "
        f"{result['channels']} channels, roots {', '.join(result['roots'])}",
        f"  frames       {result['frames']} at {result['fps']:.3f} fps"
        f" = {result['duration_s']:.3f} s",
        f"  rotation     {', '.join(f'{k} x{v}' for k, v in result['rotation_orders'].items())}",
        f"  unit         {unit['used']} (guess {unit['value']},"
        f" confidence {unit['confidence']:.2f})",
        f"  up axis      {up['used']} (guess {up['value']}, confidence {up['confidence']:.2f})",
        f"  body         height {result['body']['height_m']:.2f} m, "
        f"lowest foot {_metres(result['body']['lowest_foot_m'])}",
        f"  roles        {len(roles['joints'])} resolved, unresolved: "
        f"{', '.join(roles['unresolved']) or 'none'}",
        f"  line ends    {result['line_endings']}",
    ]
    if result["non_root_position_channels"]:
        lines.append(f"  non-root position channels: {len(result['non_root_position_channels'])}")
    lines += [f"  warning      {w}" for w in result["warnings"]]
    print("\n".join(lines))


def _metres(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f} m"


def _clean(args: argparse.Namespace) -> int:
    from motioncore import clean  # the cleaning stack imports scipy: only when asked

    try:
        clip = _load(args)
        cleaned, result = clean.clean(
            clip,
            fps=args.fps,
            smooth=args.smooth,
            speed_threshold_mps=args.speed_threshold,
            outliers=not args.no_outliers,
            footskate=not args.no_footskate,
            progress=_progress_bar(sys.stderr),
        )
    except MotionCoreError as error:
        return _fail(args, error)
    bvh.save(cleaned, args.output)
    summary = {
        "valid": True,
        "file": str(args.file),
        "output": str(args.output),
        "report": result.as_dict(),
    }
    if args.json:
        _print_json(summary)
    else:
        print(f"{args.file} -> {args.output}")
        print(json.dumps(result.as_dict(), indent=2, default=_json_default))
    return EXIT_OK


def _progress_bar(stream: TextIO) -> Any:
    """A ``progress(fraction, stage)`` callback drawing a bar on ``stream`` if it is a terminal."""
    if not stream.isatty():
        return None
    width = 30

    def draw(fraction: float, stage: str) -> None:
        done = round(max(0.0, min(1.0, fraction)) * width)
        stream.write(f"\r[{'#' * done}{' ' * (width - done)}] {fraction:4.0%} {stage:<30.30}")
        if fraction >= 1.0:
            stream.write("\n")
        stream.flush()

    return draw
