"""The ``analyze``, ``transition`` and ``sequence`` commands of ``python -m motioncore``.

* ``analyze FILE [--alpha 0.6] [--theta-max-deg 75] [--measure speed|energy|pca]
  [--next B.bvh] [--json] [--no-curves]``: motion units, phase runs, gait, MTP candidates with
  frame, time and breakdown, the chosen cut and the recommended cut points
  (:mod:`motioncore.analysis`; the JSON is documented in ``docs/analysis.md``).
* ``sequence A B C … [--alpha …] [--blend …] [-o OUT.bvh] [--json]``: the clips joined in
  order, each join cut by MTP, with each join's metrics and verdict;
* ``transition A B [--alpha …] [--theta-max-deg …] [--measure …] [--blend-s S]
  [--blend auto|crossfade|inertialize] [--blend-min-s …] [--blend-max-s …] [-o OUT.bvh]
  [--json]``: the cut in A, the entry
  in B, the metrics table for MTP and the three baselines, engine parameters
  (:mod:`motioncore.transition`); ``-o`` writes the MTP transition clip.

Defaults, bounds and names are :mod:`motioncore.parameters`'; the earlier ``--theta``
and ``--method`` still work for one release, with a deprecation notice on stderr.

Exit codes as in :mod:`motioncore.cli`: 0 success, 2 invalid input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motioncore import bvh
from motioncore import parameters as p
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError

EXIT_OK = 0
EXIT_INVALID = 2


def add_parsers(commands: Any) -> None:
    """Register ``analyze`` and ``transition`` on the ``add_subparsers()`` object."""
    analyze = commands.add_parser("analyze", help="phases, gait and momentum transition points")
    analyze.add_argument("file", type=Path, help="a .bvh file")
    _add_mtp_options(analyze)
    analyze.add_argument(
        "--next", type=Path, help="the next clip: its initial velocity sets the direction test"
    )
    analyze.add_argument("--json", action="store_true", help="print JSON")
    analyze.add_argument("--no-curves", action="store_true", help="leave the curves out")
    trans = commands.add_parser("transition", help="cut from clip A into clip B, with metrics")
    trans.add_argument("a", type=Path, help="the clip to cut out of (.bvh)")
    trans.add_argument("b", type=Path, help="the clip to cut into (.bvh, same skeleton)")
    _add_mtp_options(trans)
    _add_number(trans, p.BLEND_S)
    _add_choice(trans, p.BLEND)
    _add_number(trans, p.BLEND_MIN_S)
    _add_number(trans, p.BLEND_MAX_S)
    trans.add_argument("-o", "--output", type=Path, help="write the MTP transition clip here")
    trans.add_argument(
        "--library",
        type=Path,
        nargs="+",
        default=[],
        help="clips (.bvh files or folders of them) to search for a bridge A → C → B when "
        "the direct join misses the limits",
    )
    trans.add_argument("--bridge-output", type=Path, help="write the bridge clip here, if any")
    trans.add_argument("--json", action="store_true", help="print JSON")
    seq = commands.add_parser("sequence", help="join clips in order, each join cut by MTP")
    seq.add_argument("clips", type=Path, nargs="+", help="two or more .bvh files, in order")
    _add_mtp_options(seq)
    for parameter in (p.BLEND_S, p.BLEND_MIN_S, p.BLEND_MAX_S):
        _add_number(seq, parameter)
    _add_choice(seq, p.BLEND)
    seq.add_argument("-o", "--output", type=Path, help="write the sequence clip here (.bvh)")
    seq.add_argument("--json", action="store_true", help="print JSON")


def _add_mtp_options(parser: argparse.ArgumentParser) -> None:
    _add_number(parser, p.ALPHA)
    _add_number(parser, p.THETA_MAX_DEG)
    _add_choice(parser, p.MEASURE)
    for old, new in (("theta", p.THETA_MAX_DEG), ("method", p.MEASURE)):
        parser.add_argument(
            f"--{old}", dest=new.name, action=_Renamed, help=argparse.SUPPRESS, **_typed(new)
        )


def _flag(parameter: p.Number | p.Choice) -> str:
    return "--" + parameter.name.replace("_", "-")


def _typed(parameter: p.Number | p.Choice) -> dict[str, Any]:
    if isinstance(parameter, p.Choice):
        return {"choices": parameter.choices}
    return {"type": float}


def _add_number(parser: argparse.ArgumentParser, parameter: p.Number) -> None:
    unit = f" {parameter.unit}" if parameter.unit else ""
    default = "chosen" if parameter.optional else f"{parameter.default:g}"
    parser.add_argument(
        _flag(parameter),
        dest=parameter.name,
        default=None if parameter.optional else parameter.default,
        help=f"{parameter.label}, {parameter.minimum:g}–{parameter.maximum:g}{unit} "
        f"(default {default})",
        **_typed(parameter),
    )


def _add_choice(parser: argparse.ArgumentParser, parameter: p.Choice) -> None:
    parser.add_argument(
        _flag(parameter),
        dest=parameter.name,
        default=parameter.default,
        help=f"{parameter.label} (default {parameter.default})",
        **_typed(parameter),
    )


class _Renamed(argparse.Action):
    """An earlier option name: sets today's option and says so on stderr."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        today = "--" + self.dest.replace("_", "-")
        print(f"note: {option_string} is deprecated; use {today}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def _check(args: argparse.Namespace) -> None:
    for parameter in (p.ALPHA, p.THETA_MAX_DEG, p.BLEND_S, p.BLEND_MIN_S, p.BLEND_MAX_S):
        value = getattr(args, parameter.name, parameter.default)
        if value is not None and not parameter.minimum <= value <= parameter.maximum:
            raise MotionCoreError(
                f"{_flag(parameter)} must be in [{parameter.minimum:g}, {parameter.maximum:g}]"
                f"{' ' + parameter.unit if parameter.unit else ''}; got {value:g}"
            )


def _load(path: Path) -> Clip:
    try:
        return bvh.load(path)
    except MotionCoreError as error:
        raise MotionCoreError(f"{path}: {error}") from error


def _fail(args: argparse.Namespace, error: MotionCoreError) -> int:
    if args.json:
        json.dump({"error": {"message": str(error)}}, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(f"error: {error}", file=sys.stderr)
    return EXIT_INVALID


def _emit(
    payload: dict[str, Any], *, as_json: bool, summary: Callable[[dict[str, Any]], None]
) -> int:
    """Print ``payload`` as JSON or as the human summary; the success exit code."""
    if as_json:
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        summary(payload)
    return EXIT_OK


def analyze(args: argparse.Namespace) -> int:
    """``python -m motioncore analyze``."""
    from motioncore import analysis

    try:
        _check(args)
        feats = analysis.features(_load(args.file))
        next_feats = analysis.features(_load(args.next)) if args.next else None
    except (MotionCoreError, OSError) as error:
        return _fail(args, MotionCoreError(str(error)))
    result = analysis.analyze(
        feats,
        alpha=args.alpha,
        theta_max_deg=args.theta_max_deg,
        measure=args.measure,
        next_features=next_feats,
    )
    payload = {"file": str(args.file), **result.as_dict(curves=not args.no_curves)}
    return _emit(payload, as_json=args.json, summary=_print_analysis)


def _print_analysis(p: dict[str, Any]) -> None:
    par = p["parameters"]
    print(
        f"{p['file']}: {p['frames']} frames, {p['duration_s']:.2f} s at {p['fps']:g} Hz; "
        f"α {par['alpha']:g}, θ_max {par['theta_max_deg']:g}°, {par['measure']} "
        f"({par['curve_unit']})"
    )
    fractions = ", ".join(f"{k} {100 * v:.0f} %" for k, v in p["phases"]["fractions"].items())
    print(f"  motion units: {len(p['units'])}; phases: {fractions}")
    g = p["gait"]
    periodic = "periodic" if g.get("periodic") else f"not periodic ({g.get('reason')})"
    print(f"  gait: {periodic}; cycles {len(g.get('cycles', []))}")
    best = p["best"]
    if best is None:
        print(f"  no cut: {p['reason']}")
    else:
        print(
            f"  best cut: frame {best['frame']} ({best['time_s']:.3f} s), "
            f"{len(p['candidates'])} candidates"
        )
    cuts = p["cuts"]
    times = ", ".join(f"{t:.3f}" for t in cuts["times_s"][:12])
    print(
        f"  cut points ({cuts['strategy']}): {times}{' …' if len(cuts['times_s']) > 12 else ''} s"
    )
    if p["recommendation"]:
        print(f"  advice: {p['recommendation']}")


def transition_command(args: argparse.Namespace) -> int:
    """``python -m motioncore transition``."""
    from motioncore import analysis, transition

    try:
        _check(args)
        a, b = _load(args.a), _load(args.b)
        comparison = transition.compare(
            a,
            b,
            alpha=args.alpha,
            theta_max_deg=args.theta_max_deg,
            measure=args.measure,
            blend_s=args.blend_s,
            blend=args.blend,
            blend_min_s=args.blend_min_s,
            blend_max_s=args.blend_max_s,
            phase_a=analysis.features(a).gait_phase,
            phase_b=analysis.features(b).gait_phase,
        )
    except (MotionCoreError, OSError) as error:
        return _fail(args, MotionCoreError(str(error)))
    payload = {"a": str(args.a), "b": str(args.b), **comparison.as_dict()}
    if args.output:
        bvh.save(comparison.chosen.clip, args.output)
        payload["output"] = str(args.output)
    if args.library and not comparison.chosen.verdict.good:
        try:
            payload["bridge"] = _bridge(comparison, args)
        except (MotionCoreError, OSError) as error:
            return _fail(args, MotionCoreError(str(error)))
    return _emit(payload, as_json=args.json, summary=_print_transition)


def _bridge(comparison: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The bridge through ``--library`` (written to ``--bridge-output``), or that none
    improves on the direct join."""
    from motioncore.transition import bridge

    paths = [
        found
        for path in args.library
        for found in (sorted(path.glob("*.bvh")) if path.is_dir() else [path])
        if found.resolve() not in (args.a.resolve(), args.b.resolve())
    ]
    made = bridge.for_comparison(comparison, [(path.name, _load(path)) for path in paths])
    if made is None:
        return {"found": False, "searched_clips": len(paths)}
    out = {"found": True, "searched_clips": len(paths), **made.as_dict()}
    if args.bridge_output:
        bvh.save(made.clip, args.bridge_output)
        out["output"] = str(args.bridge_output)
    return out


def sequence_command(args: argparse.Namespace) -> int:
    """``python -m motioncore sequence``."""
    from motioncore.transition import sequence

    try:
        _check(args)
        clips = [_load(path) for path in args.clips]
        made = sequence.sequence(
            clips,
            alpha=args.alpha,
            theta_max_deg=args.theta_max_deg,
            measure=args.measure,
            blend=args.blend,
            blend_s=args.blend_s,
            blend_min_s=args.blend_min_s,
            blend_max_s=args.blend_max_s,
        )
    except (MotionCoreError, OSError) as error:
        return _fail(args, MotionCoreError(str(error)))
    payload = {"clips": [str(path) for path in args.clips], **made.as_dict()}
    if args.output:
        bvh.save(made.clip, args.output)
        payload["output"] = str(args.output)
    return _emit(payload, as_json=args.json, summary=_print_sequence)


def _print_sequence(p: dict[str, Any]) -> None:
    print(f"{len(p['clips'])} clips → {p['frames']} frames at {p['fps']:g} Hz")
    for join in p["joins"]:
        m, verdict = join["metrics"], join["verdict"]
        state = "good" if verdict["good"] else "misses " + "; ".join(verdict["misses"])
        print(
            f"  join {join['from_clip'] + 1} → {join['to_clip'] + 1}: cut frame "
            f"{join['cut']['frame']}, entry frame {join['entry']['frame']}, "
            f"{join['blend']} {join['blend_s']:.2f} s, continuity "
            f"{m['velocity_continuity']:.3f}, pose jump {m['pose_discontinuity_m']:.3f} m ({state})"
        )
    if p.get("output"):
        print(f"  wrote {p['output']}")


def _print_transition(p: dict[str, Any]) -> None:
    cut, entry = p["cut"], p["entry"]
    print(
        f"{p['a']} → {p['b']}: cut at frame {cut['frame']} ({cut['time_s']:.3f} s), "
        f"entry at frame {entry['frame']} ({entry['time_s']:.3f} s), "
        f"{p['blend']} {p['blend_s']:g} s"
    )
    print(f"  blend: {p['blending']['reason']}")
    if cut.get("reason"):
        print(f"  note: {cut['reason']}")
    verdict = p["verdict"]
    print("  verdict: " + ("good" if verdict["good"] else "; ".join(verdict["misses"])))
    found = p.get("bridge")
    if found is not None:
        if found["found"]:
            joins = ", ".join(f"{j['metrics']['velocity_continuity']:.3f}" for j in found["joins"])
            print(f"  bridge via {found['via']['name']}: join continuities {joins}")
        else:
            print(f"  no good transition: none of {found['searched_clips']} clips bridges it")
    header = ("method", "cut", "entry", "retention", "continuity", "energy loss")
    print("  {:<10} {:>6} {:>6} {:>10} {:>11} {:>12}".format(*header))
    for method, m in p["metrics"].items():
        print(
            f"  {method:<10} {m['cut_frame']:>6} {m['entry_frame']:>6} "
            f"{_fmt(m['momentum_retention']):>10} {_fmt(m['velocity_continuity']):>11} "
            f"{_fmt(m['energy_loss']):>12}"
        )
    unity, unreal = p["engine"]["unity"], p["engine"]["unreal"]
    print(
        f"  Unity: exit time {unity['exit_time']:.3f}, transition duration "
        f"{unity['transition_duration']:g} s, offset {unity['transition_offset']:.3f}"
    )
    print(
        f"  Unreal: blend duration {unreal['blend_duration_s']:g} s, automatic rule time "
        f"remaining {unreal['automatic_rule_time_remaining_s']:.3f} s"
    )
    if p.get("recommendation"):
        print(f"  advice: {p['recommendation']}")
    if p.get("output"):
        print(f"  wrote {p['output']}")


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"
