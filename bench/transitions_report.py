"""Transition quality on real clip pairs: MTP against the three baselines of seed 000 §6.3.

The pairs are the fixed list ``bench/transition_pairs.csv`` (``bench/transition_pairs.py``
draws it from every permissive and evaluation-only folder of ``../shared/data``: clips
of one skeleton, split into "same action" and "mixed action"). For each pair (A, B) run
:func:`motioncore.transition.compare` at α = 0.6, θ_max = 75°, speed, a 0.12 s
crossfade, with both clips' gait phases, and tabulate the §6.1 metrics for MTP, end of
clip, fixed 70 % and the speed threshold. Clips are cleaned first with the defaults
(:func:`motioncore.clean.clean`), as the web pipeline does before a transition
(``--raw`` skips it).

Prints, per set, for every metric the share of pairs where MTP beats each baseline
(velocity continuity and energy loss lower, momentum retention higher) and the share
where each method meets the §6.1 target (velocity continuity < 0.15; momentum retention
0.6–0.9 and above the end cut's; energy loss < 0.4; all three), the goals of the
transitions issue (MTP beats the end cut on velocity continuity in ≥ 80 % of all pairs;
meets < 0.15 in ≥ 60 % of same-action pairs), and writes the per-pair, per-method table
as markdown (``--markdown``) and everything as JSON (``--json``).

    python bench/transitions_report.py --markdown docs/transitions-report.md
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from motioncore import analysis, bvh, clean, measures, transition  # noqa: E402
from motioncore.clip import Clip, FloatArray  # noqa: E402
from motioncore.errors import MotionCoreError  # noqa: E402
from motioncore.skeleton import infer  # noqa: E402
from motioncore.transition import bridge  # noqa: E402
from motioncore.transition.entry import DEFAULT_WEIGHTS  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "data"
PAIRS = REPO_ROOT / "bench" / "transition_pairs.csv"
METHODS = ("mtp", "end", "fixed70", "threshold")
BASELINES = METHODS[1:]
METRICS = ("velocity_continuity", "momentum_retention", "energy_loss")
HIGHER_IS_BETTER = {"velocity_continuity": False, "momentum_retention": True, "energy_loss": False}
CONTINUITY_TARGET = 0.15
RETENTION_BAND = (0.6, 0.9)
ENERGY_LOSS_TARGET = 0.4
BEATS_END_CONTINUITY_GOAL = 0.80
SAME_ACTION_CONTINUITY_GOAL = 0.60
BRIDGE_GOAL = 0.70
JOIN_MEASURES = ("velocity_jump", "excess_acceleration", "excess_joint_speed")
SETS = {
    "same action": "clips of one skeleton performing the same motion (walk → walk, run → run, "
    "idle → idle, Bandai styles, ...): the transitions a studio makes between takes and styles",
    "mixed action": "clips of one skeleton doing different things (dance → dribble, walk → "
    "turn in place, bow → run, ...): a stress test, many need a reversal or start from rest",
}


def read_pairs(path: Path, data: Path) -> dict[str, list[tuple[str, Path, Path]]]:
    """Set name → its (skeleton, A, B) pairs, in the file's order."""
    out: dict[str, list[tuple[str, Path, Path]]] = {name: [] for name in SETS}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            out[row["set"]].append((row["skeleton"], data / row["a"], data / row["b"]))
    return out


@functools.cache
def _prepared(path: Path, raw: bool) -> tuple[Clip, FloatArray]:
    """A clip as the pipeline hands it to a transition (cleaned unless ``raw``) and its
    gait phase; cached, since a clip is in several pairs."""
    clip = bvh.load(path)
    if not raw:
        clip = clean.clean(clip)[0]
    return clip, analysis.features(clip).gait_phase


def join_measures(joined: transition.Transition) -> dict[str, float | None]:
    """The independent measures of a transition's join (:mod:`motioncore.measures.joins`)."""
    clip, layout = joined.clip, joined.result
    found = measures.measure_join(clip, infer(clip.skeleton), layout.blend_start, layout.blend_stop)
    return found.as_dict()


def bridge_report(
    comparison: transition.Comparison, library: list[Path], args: argparse.Namespace
) -> dict[str, Any] | None:
    """The bridge through the library for a pair whose MTP join misses the limits, with its
    joins' independent measures; ``None`` when the join is good or no clip improves."""
    clips = [(path.name, _prepared(path, args.raw)[0]) for path in library]
    found = bridge.for_comparison(comparison, clips, search_s=args.search_s)
    if found is None:
        return None
    return {
        **found.as_dict(),
        "join_measures": [join_measures(t) for t in found.joins()],
    }


def run_pair(
    a_path: Path, b_path: Path, library: list[Path], args: argparse.Namespace
) -> dict[str, Any]:
    """The comparison of one pair (its JSON form, plus timings and clip facts), with each
    method's independent join measures and, where MTP's join misses the limits and
    ``--bridges`` is on, the bridge through ``library``."""
    (a, phase_a), (b, phase_b) = _prepared(a_path, args.raw), _prepared(b_path, args.raw)
    started = time.perf_counter()
    comparison = transition.compare(
        a,
        b,
        alpha=args.alpha,
        theta_max_deg=args.theta,
        measure="speed",
        blend_s=args.blend_s,
        blend=args.blend,
        phase_a=phase_a,
        phase_b=phase_b,
        search_s=args.search_s,
        weights=replace(
            DEFAULT_WEIGHTS,
            velocity_s_per_m=args.velocity_weight,
            continuity=args.continuity_weight,
        ),
    )
    elapsed = time.perf_counter() - started
    others = [path for path in library if path not in (a_path, b_path)]
    started = time.perf_counter()
    bridged = bridge_report(comparison, others, args) if args.bridges else None
    return {
        **comparison.as_dict(),
        "join_measures": {m: join_measures(t) for m, t in comparison.transitions.items()},
        "bridge": bridged,
        "bridge_seconds": time.perf_counter() - started,
        "a": a_path.relative_to(args.data).as_posix(),
        "b": b_path.relative_to(args.data).as_posix(),
        "fps": a.fps,
        "frames_a": a.num_frames,
        "frames_b": b.num_frames,
        "seconds": elapsed,
    }


def _num(value: Any, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def meets(metrics: dict[str, Any], end: dict[str, Any]) -> dict[str, bool]:
    """Which §6.1 targets one method's metrics meet (retention: in the band and above the
    end cut's), and all three together."""
    cont, ret, loss = (metrics[m] for m in METRICS)
    out = {
        "velocity_continuity": cont is not None and cont < CONTINUITY_TARGET,
        "momentum_retention": ret is not None
        and RETENTION_BAND[0] <= ret <= RETENTION_BAND[1]
        and ret > (end["momentum_retention"] or 0.0),
        "energy_loss": loss is not None and loss < ENERGY_LOSS_TARGET,
    }
    out["all"] = all(out.values())
    return out


def beats(mtp: dict[str, Any], other: dict[str, Any], metric: str) -> bool:
    """Whether MTP's ``metric`` is strictly better than ``other``'s (a missing value loses)."""
    mine, theirs = mtp[metric], other[metric]
    if mine is None:
        return False
    if theirs is None:
        return True
    return bool(mine > theirs if HIGHER_IS_BETTER[metric] else mine < theirs)


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Per set: pairs; MTP beats each baseline per metric; each method's targets met;
    medians; MTP fallbacks to the end cut."""
    out: dict[str, Any] = {"pairs": len(results)}
    out["mtp_beats"] = {
        base: {
            metric: sum(beats(r["metrics"]["mtp"], r["metrics"][base], metric) for r in results)
            for metric in METRICS
        }
        for base in BASELINES
    }
    for method in METHODS:
        met = [meets(r["metrics"][method], r["metrics"]["end"]) for r in results]
        out[method] = {
            "meets": {key: sum(m[key] for m in met) for key in (*METRICS, "all")},
            **{
                f"median_{metric}": _median([r["metrics"][method][metric] for r in results])
                for metric in (*METRICS, "pose_discontinuity_m")
            },
        }
    out["mtp_fell_back"] = sum(1 for r in results if r["methods"]["mtp"]["cut"]["reason"])
    out["joins"] = {
        method: {
            f"median_{key}": _median([r["join_measures"][method][key] for r in results])
            for key in JOIN_MEASURES
        }
        | {
            "excess_acceleration_over_1": sum(
                (r["join_measures"][method]["excess_acceleration"] or 0.0) > 1.0 for r in results
            )
        }
        for method in METHODS
    }
    out["verdicts"] = verdicts(results)
    return out


def verdicts(results: list[dict[str, Any]]) -> dict[str, int]:
    """How many MTP joins meet the limits; of the rest, how many got a bridge, how many of
    those bridges lower the continuity (their worse join's, §6.1 as measured on the bridge
    clip) and the independent join velocity jump (worse join against the direct join), and
    how many are "no good transition"."""
    failing = [r for r in results if not r["verdict"]["good"]]
    bridged = [r for r in failing if r["bridge"]]
    return {
        "good": len(results) - len(failing),
        "missing_limits": len(failing),
        "bridged": len(bridged),
        "bridge_lowers_continuity": sum(
            effective_continuity(r) < r["metrics"]["mtp"]["velocity_continuity"] for r in bridged
        ),
        "bridge_lowers_join_jump": sum(
            _worse_bridge_jump(r) < (r["join_measures"]["mtp"]["velocity_jump"] or 0.0)
            for r in bridged
        ),
        "no_good_transition": len(failing) - len(bridged),
    }


def _worse_bridge_jump(r: dict[str, Any]) -> float:
    """The larger independent join velocity jump of a bridge's two joins."""
    return max(float(m["velocity_jump"] or 0.0) for m in r["bridge"]["join_measures"])


def effective_continuity(r: dict[str, Any]) -> float:
    """MTP's continuity as the product delivers it: the worse bridge join's when a bridge
    was built, else the direct join's."""
    if r.get("bridge"):
        return max(float(j["metrics"]["velocity_continuity"]) for j in r["bridge"]["joins"])
    return float(r["metrics"]["mtp"]["velocity_continuity"])


def _median(values: list[Any]) -> float | None:
    finite: list[float] = sorted(float(v) for v in values if v is not None)
    if not finite:
        return None
    mid = len(finite) // 2
    return finite[mid] if len(finite) % 2 else 0.5 * (finite[mid - 1] + finite[mid])


def _share(count: int, n: int) -> str:
    return f"{count}/{n} ({100 * count / n:.0f} %)" if n else "—"


def _table(results: list[dict[str, Any]], stats: dict[str, Any]) -> list[str]:
    n = stats["pairs"]
    lines = [
        "| MTP beats | " + " | ".join(m.replace("_", " ") for m in METRICS) + " |",
        "|---|" + "---:|" * len(METRICS),
    ]
    for base in BASELINES:
        cells = [_share(stats["mtp_beats"][base][m], n) for m in METRICS]
        lines.append(f"| {base} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| method | continuity < 0.15 | retention 0.6–0.9 and > end's | energy loss < 0.4 | "
        "all three | median continuity | median retention | median energy loss | "
        "median pose jump m |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for method in METHODS:
        s = stats[method]
        met = [_share(s["meets"][key], n) for key in (*METRICS, "all")]
        medians = [_num(s[f"median_{m}"]) for m in (*METRICS, "pose_discontinuity_m")]
        lines.append(f"| {method} | " + " | ".join(met + medians) + " |")
    lines += ["", f"MTP fell back to the end cut in {stats['mtp_fell_back']} of {n} pairs."]
    lines += [
        "",
        "Independent join measures (`motioncore/measures/joins.py`, from the output clip alone):",
        "",
        "| method | median join velocity jump | median excess acceleration | "
        "excess acceleration > 1 | median excess joint speed |",
        "|---|---:|---:|---:|---:|",
    ]
    for method in METHODS:
        j = stats["joins"][method]
        lines.append(
            f"| {method} | {_num(j['median_velocity_jump'])} | "
            f"{_num(j['median_excess_acceleration'], 2)} | "
            f"{_share(j['excess_acceleration_over_1'], n)} | "
            f"{_num(j['median_excess_joint_speed'], 2)} |"
        )
    v = stats["verdicts"]
    lines += [
        "",
        f"MTP's join meets the limits (continuity < 0.15, pose jump ≤ 0.2 m) in {v['good']} of "
        f"{n} pairs. Of the {v['missing_limits']} that miss them: a bridge through the library "
        f"in {v['bridged']} (it lowers the continuity in {v['bridge_lowers_continuity']} and "
        f"the independent join velocity jump in {v['bridge_lowers_join_jump']}); "
        f"no good transition in {v['no_good_transition']}.",
        "",
        "| A → B | fps | method | cut | entry | blend | R | C | E | slide m/s | pose jump m | "
        "join jump | verdict |",
        "|---|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        name = f"{Path(r['a']).stem} → {Path(r['b']).stem}"
        for method in METHODS:
            m, detail = r["metrics"][method], r["methods"][method]
            lines.append(
                f"| {name if method == 'mtp' else ''} | {r['fps']:g} | {method} | "
                f"{m['cut_frame']} | {m['entry_frame']} | "
                f"{detail['blend']} {detail['blend_s']:.2f} s | {_num(m['momentum_retention'])} | "
                f"{_num(m['velocity_continuity'])} | {_num(m['energy_loss'])} | "
                f"{_num(m['foot_slide_mps'], 3)} | {_num(m['pose_discontinuity_m'])} | "
                f"{_num(r['join_measures'][method]['velocity_jump'])} | "
                f"{verdict_text(r) if method == 'mtp' else ''} |"
            )
    return lines


def verdict_text(r: dict[str, Any]) -> str:
    """MTP's verdict in a few words: good, the bridge and its joins, or no good transition."""
    if r["verdict"]["good"]:
        return "good"
    if r.get("bridge"):
        joins = r["bridge"]["joins"]
        continuity = "/".join(f"{j['metrics']['velocity_continuity']:.2f}" for j in joins)
        return f"bridge via {Path(r['bridge']['via']['name']).stem} (C {continuity})"
    return "no good transition: " + "; ".join(r["verdict"]["misses"])


def markdown(
    sets: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]], args: argparse.Namespace
) -> str:
    """Both pair sets' summaries and per-pair tables as markdown."""
    lines = [
        "# Transition report: MTP against the baselines on real clip pairs",
        "",
        f"Generated by `python bench/transitions_report.py --markdown docs/transitions-report.md` "
        f"on the pairs of `{args.pairs.name}` (`bench/transition_pairs.py`) "
        f"(α = {args.alpha}, θ_max = {args.theta}°, speed, blend {args.blend} over "
        f"{'a length chosen from the mismatch' if args.blend_s is None else args.blend_s}, gait "
        "phase in the entry match, clips cleaned with the defaults first). Metrics as defined in "
        "`motioncore/transition/metrics.py` (seed 000 §6.1): R = momentum retention (the "
        "slowest COM speed through the switch / A's peak speed), C = velocity continuity "
        "(|v_join - v_before| / mean speed: A at the cut against aligned B at the entry), "
        "E = energy loss ((E_peak - lowest E through "
        "the switch) / E_peak). Cut and entry in frames (B's entry at A's frame rate).",
    ]
    for name, (results, stats) in sets.items():
        lines += ["", f"## {name} ({stats['pairs']} pairs)", "", SETS[name] + ".", ""]
        lines += _table(results, stats)
    return "\n".join(lines) + "\n"


def print_summary(name: str, stats: dict[str, Any]) -> None:
    n = stats["pairs"]
    print(f"\n{name}: {n} pairs; MTP fell back to the end cut in {stats['mtp_fell_back']}")
    print(f"{'MTP beats':<12}" + "".join(f"{m[:20]:>22}" for m in METRICS))
    for base in BASELINES:
        row = "".join(f"{_share(stats['mtp_beats'][base][m], n):>22}" for m in METRICS)
        print(f"{base:<12}{row}")
    print(f"{'meets':<12}" + "".join(f"{m[:20]:>22}" for m in (*METRICS, "all")))
    for method in METHODS:
        met = stats[method]["meets"]
        print(f"{method:<12}" + "".join(f"{_share(met[k], n):>22}" for k in (*METRICS, "all")))
    print(f"{'joins':<12}" + "".join(f"{m[:20]:>22}" for m in (*JOIN_MEASURES, "accel > 1")))
    for method in METHODS:
        j = stats["joins"][method]
        cells = [_num(j[f"median_{m}"]) for m in JOIN_MEASURES]
        cells.append(_share(j["excess_acceleration_over_1"], n))
        print(f"{method:<12}" + "".join(f"{c:>22}" for c in cells))
    v = stats["verdicts"]
    print(
        f"MTP join meets the limits in {_share(v['good'], n)}; of {v['missing_limits']} that "
        f"miss: bridged {v['bridged']} (lower continuity {v['bridge_lowers_continuity']}, lower "
        f"join jump {v['bridge_lowers_join_jump']}), no good transition {v['no_good_transition']}"
    )


def print_goals(sets: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]]) -> None:
    """The two goals of the transitions issue, PASS or FAIL."""
    everything = [r for results, _ in sets.values() for r in results]
    n = len(everything)
    beat = sum(beats(r["metrics"]["mtp"], r["metrics"]["end"], METRICS[0]) for r in everything)
    share = beat / n if n else 0.0
    print(
        f"\n{'PASS' if n >= 150 else 'FAIL'}  at least 150 same-skeleton pairs ({n})\n"
        f"{'PASS' if share >= BEATS_END_CONTINUITY_GOAL else 'FAIL'}  MTP beats the end cut on "
        f"velocity continuity in >= 80 % of all pairs ({100 * share:.1f} %)"
    )
    with_bridges = sum(
        effective_continuity(r) < r["metrics"]["end"]["velocity_continuity"] for r in everything
    )
    print(
        f"      (with the bridges built where MTP's join misses the limits: "
        f"{100 * with_bridges / max(n, 1):.1f} %; the baselines get no bridge)"
    )
    failing = sum(stats["verdicts"]["missing_limits"] for _, stats in sets.values())
    lowered = sum(stats["verdicts"]["bridge_lowers_continuity"] for _, stats in sets.values())
    if failing:
        print(
            f"{'PASS' if lowered / failing >= BRIDGE_GOAL else 'FAIL'}  a bridge lowers the "
            f"velocity continuity in >= 70 % of the pairs whose MTP join misses the limits "
            f"({lowered}/{failing}, {100 * lowered / failing:.1f} %)"
        )
    if "same action" in sets:
        stats = sets["same action"][1]
        same = stats["mtp"]["meets"]["velocity_continuity"] / max(stats["pairs"], 1)
        print(
            f"{'PASS' if same >= SAME_ACTION_CONTINUITY_GOAL else 'FAIL'}  MTP velocity "
            f"continuity < 0.15 in >= 60 % of same-action pairs ({100 * same:.1f} %)"
        )


def libraries(listed: dict[str, list[tuple[str, Path, Path]]]) -> dict[str, list[Path]]:
    """Skeleton → the clips of the pair list with that skeleton (a bridge's library: what
    a project of that skeleton would hold), in the file's order."""
    out: dict[str, list[Path]] = {}
    for pairs in listed.values():
        for group, a, b in pairs:
            clips = out.setdefault(group, [])
            clips.extend(path for path in (a, b) if path not in clips)
    return out


def run_set(
    name: str,
    chosen: list[tuple[str, Path, Path]],
    library: dict[str, list[Path]],
    args: argparse.Namespace,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every pair of one set; pairs the library refuses are listed with the reason."""
    results: list[dict[str, Any]] = []
    skipped: list[str] = []
    print(f"\n# {name}")
    for group, a, b in chosen:
        try:
            result = run_pair(a, b, library[group], args)
        except MotionCoreError as error:
            skipped.append(f"{a.name} → {b.name}: {error}")
            continue
        results.append({**result, "group": group, "set": name})
        mtp = result["metrics"]["mtp"]
        end = result["metrics"]["end"]
        print(
            f"{a.stem[:28]:<28} → {b.stem[:28]:<28} R {_num(mtp['momentum_retention'])}"
            f" (end {_num(end['momentum_retention'])})"
            f" C {_num(mtp['velocity_continuity'])} {result['seconds'] * 1000:6.0f} ms"
            f"{'' if result['verdict']['good'] else '  ' + verdict_text(result)}",
            flush=True,
        )
    for line in skipped:
        print("skipped:", line)
    return results, skipped


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the shared corpus folder")
    parser.add_argument("--pairs", type=Path, default=PAIRS, help="the pair list (CSV)")
    parser.add_argument("--alpha", type=float, default=0.6)
    parser.add_argument("--theta", type=float, default=75.0)
    parser.add_argument(
        "--blend-s", type=float, default=None, help="a fixed blend length, s (default: chosen)"
    )
    parser.add_argument("--blend", choices=("auto", "crossfade", "inertialize"), default="auto")
    parser.add_argument(
        "--no-bridges",
        dest="bridges",
        action="store_false",
        help="skip the bridge search for joins that miss the limits",
    )
    parser.add_argument(
        "--search-s", type=float, default=1.0, help="entry search window at B's start, s"
    )
    parser.add_argument(
        "--velocity-weight",
        type=float,
        default=DEFAULT_WEIGHTS.velocity_s_per_m,
        help="entry cost per m/s of velocity difference (pose costs 1 per metre)",
    )
    parser.add_argument(
        "--continuity-weight",
        type=float,
        default=DEFAULT_WEIGHTS.continuity,
        help="entry cost per unit of velocity continuity (pose costs 1 per metre)",
    )
    parser.add_argument(
        "--sets", nargs="+", choices=list(SETS), default=list(SETS), help="which pair sets"
    )
    parser.add_argument(
        "--raw", action="store_true", help="skip cleaning (the web pipeline cleans first)"
    )
    parser.add_argument("--markdown", type=Path, help="write the table here")
    parser.add_argument(
        "--json", type=Path, default=REPO_ROOT / "bench" / "results" / "transitions.json"
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if not (args.data / "MANIFEST.csv").exists():
        print(f"no corpus at {args.data} (the shared data lives beside the checkout)")
        return 2
    listed = read_pairs(args.pairs, args.data)
    library = libraries(listed)
    chosen = {name: listed[name] for name in args.sets}
    sets: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {}
    dump: dict[str, Any] = {}
    for name, pair_list in chosen.items():
        results, skipped = run_set(name, pair_list, library, args)
        sets[name] = (results, summary(results))
        dump[name] = {"summary": sets[name][1], "pairs": results, "skipped": skipped}
    for name, (_, stats) in sets.items():
        print_summary(name, stats)
    print_goals(sets)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(dump))
    if args.markdown:
        args.markdown.write_text(markdown(sets, args), encoding="utf-8")
        print(f"table written to {args.markdown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
