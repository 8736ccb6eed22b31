"""Benchmark: BVH load and FK of motioncore vs Python peers vs a numpy lower bound.

Run ``python bench/bvh_bench.py --setup`` once (creates ``bench/.venv`` with the
pinned peers), then ``python bench/bvh_bench.py`` (it re-runs itself inside
``bench/.venv``). See bench/README.md for what is timed and how to read the
output. Prints markdown tables, PASS/FAIL lines for the acceptance targets, and
writes every sample as JSON to ``bench/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_bound
import bench_peers
import bench_report
import numpy as np
from bench_peers import BOUND, OURS, Contender, Missing, Positions
from bench_report import FileRun
from bench_timing import Result, Task, paired_ratio, run_rounds

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
VENV = BENCH_DIR / ".venv"
VENV_PYTHON = VENV / "bin" / "python"
VENDORED = VENV / "peer-src"
DEFAULT_BASE = REPO_ROOT / "tests" / "data" / "cmu-bvh11" / "131_02.bvh"
RESULTS_DIR = BENCH_DIR / "results"
LONG_FILE_ROUNDS_FRAMES = 5000
MEMORY_TIMEOUT_S = 300


# --- environment -----------------------------------------------------------------------


def _in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def reexec_in_venv(argv: list[str]) -> None:
    """Re-run this script with ``bench/.venv``'s interpreter when it exists."""
    if VENV_PYTHON.exists() and not _in_venv():
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), str(Path(__file__).resolve()), *argv])


GIT_SOURCES = {
    # peer: (import package, paths taken from its git tree). fairmotion's full tree
    # holds a blob that the snapshot lacks, so only the packages BVH loading needs.
    "pymo": ("pymo", ["pymo"]),
    "fairmotion": (
        "fairmotion",
        [f"fairmotion/{p}" for p in ("__init__.py", "core", "data", "ops", "utils")],
    ),
}


def setup_venv(sources: dict[str, Path | None]) -> None:
    """Create ``bench/.venv``, install the pinned peers, copy given git peers into it."""
    if not VENV_PYTHON.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(VENV_PYTHON), "-m", "pip", "install", "--disable-pip-version-check"]
    # --no-deps: every transitive dependency is pinned in the file, and fairmotion's
    # metadata would otherwise pull torch==1.4 and an OpenGL stack it does not need here.
    requirements = BENCH_DIR / "requirements-peers.txt"
    subprocess.run([*pip, "--no-deps", "-r", str(requirements)], check=True)
    for peer, given in sources.items():
        if given is None:
            continue
        src = resolve_source(peer, given, Path(tempfile.mkdtemp(prefix=f"{peer}-")))
        if src is None:
            sys.exit(f"--{peer} {given}: neither a checkout nor a git dir holding {peer}")
        shutil.rmtree(VENDORED / peer, ignore_errors=True)
        shutil.copytree(src, VENDORED / peer)
        print(f"{peer} source copied into {VENDORED / peer} (git-ignored; never committed)")
    print(f"ready: {VENV_PYTHON}; now run: python bench/bvh_bench.py")


def resolve_source(peer: str, given: Path | None, scratch: Path) -> Path | None:
    """A directory holding ``peer``'s package: from ``given``, ``$<PEER>_SRC`` or the venv.

    ``given`` may be a checkout (a folder holding the package) or a bare git directory,
    from which the package is extracted into ``scratch`` with ``git archive``.
    """
    package, paths = GIT_SOURCES[peer]
    env = os.environ.get(f"{peer.upper()}_SRC")
    for path in [p for p in (given, Path(env) if env else None, VENDORED / peer) if p]:
        if (path / package / "__init__.py").exists():
            return path
        if (path / "HEAD").exists() and (path / "objects").is_dir():
            return _extract(path, paths, scratch / peer)
    return None


def _extract(git_dir: Path, paths: list[str], out: Path) -> Path:
    git = ["git", f"--git-dir={git_dir}"]
    archive = subprocess.run([*git, "archive", "HEAD", *paths], check=True, capture_output=True)
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive.stdout, check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    (out / "COMMIT").write_text(head.stdout)
    return out


# --- files -------------------------------------------------------------------------------

_FRAMES_RE = re.compile(rb"(Frames:[ \t]*)(\d+)")


def make_repeated(base: Path, times: int, out_dir: Path) -> Path:
    """``base`` with its MOTION lines repeated ``times`` times (line endings kept)."""
    data = base.read_bytes()
    head, sep, motion = data.partition(b"Frame Time:")
    time_line, newline, frames = motion.partition(b"\n")
    if not frames.endswith(b"\n"):
        frames += b"\n"
    found = _FRAMES_RE.search(head)
    if found is None:
        sys.exit(f"{base}: no 'Frames:' line to repeat")
    count = int(found.group(2))
    head = _FRAMES_RE.sub(lambda m: m.group(1) + str(count * times).encode(), head, count=1)
    out = out_dir / f"{base.stem}_x{times}.bvh"
    out.write_bytes(head + sep + time_line + newline + frames * times)
    return out


# --- one file ----------------------------------------------------------------------------


Rates = dict[tuple[str, str], float]
"""Seconds per frame of each (library, operation), for predicting slow calls."""


def _predict(rates: Rates, key: tuple[str, str], frames: int) -> float | None:
    rate = rates.get(key)
    return None if rate is None else rate * frames


def _parse_tasks(contenders: list[Contender], path: Path, frames: int, rates: Rates) -> list[Task]:
    return [
        Task(c.name, lambda: path, c.parse, _predict(rates, (c.name, "parse"), frames))
        for c in contenders
    ]


def _fk_setup(contender: Contender, path: Path, parsed: Any) -> Callable[[], Any]:
    if contender.fresh_for_fk:
        return lambda: contender.parse(path)
    return lambda: parsed


PositionsOf = dict[str, Callable[[Any, Any], Positions] | None]


def _fk_tasks(
    contenders: list[Contender],
    path: Path,
    frames: int,
    parse_results: dict[str, Result],
    rates: Rates,
) -> tuple[list[Task], PositionsOf]:
    """One FK task per contender and per extra FK entry point, and their position readers."""
    tasks = []
    positions_of: PositionsOf = {}
    for c in contenders:
        res = parse_results.get(c.name)
        if c.fk is None or res is None or res.output is None:
            continue
        entries = {c.name: (c.fk, c.positions)}
        entries.update({f"{c.name} {label}": fns for label, fns in c.extra_fk.items()})
        for name, (fk, positions) in entries.items():
            predicted = _predict(rates, (name, "fk"), frames)
            tasks.append(Task(name, _fk_setup(c, path, res.output), fk, predicted))
            positions_of[name] = positions
    return tasks, positions_of


def _agreement(positions_of: PositionsOf, run: FileRun) -> None:
    """Max abs difference of each library's FK positions to the reference FK, metres."""
    ref, ref_reader = run.fk.get(BOUND), positions_of.get(BOUND)
    if ref is None or not ref.ok or ref_reader is None:
        return
    ref_names, ref_pos = ref_reader(ref.setup_out, ref.output)
    ours = run.fk.get(OURS)
    if ours is not None and ours.ok:
        mpu = float(ours.setup_out.source.metres_per_unit)
    else:
        mpu, run.units = 1.0, "file units"
    index = {n: i for i, n in enumerate(ref_names)}
    for name, res in run.fk.items():
        reader = positions_of.get(name)
        if not res.ok or reader is None:
            continue
        names, pos = reader(res.setup_out, res.output)
        run.joints[name] = pos.shape[1]
        pairs = [(i, index[n]) for i, n in enumerate(names) if n in index]
        if pos.shape[0] != ref_pos.shape[0] or not pairs:
            run.compared[name] = f"not comparable: {pos.shape} vs {ref_pos.shape}"
            continue
        mine, theirs = zip(*pairs, strict=True)
        diff = float(np.abs(pos[:, list(mine)] - ref_pos[:, list(theirs)]).max()) * mpu
        run.agreement_m[name] = diff
        run.compared[name] = f"{len(pairs)} joints"


def bench_file(
    label: str,
    path: Path,
    acceptance: bool,
    contenders: list[Contender],
    args: argparse.Namespace,
    rates: Rates,
) -> FileRun:
    """Time parse and FK of every contender on ``path``; fill ``rates`` for predictions."""
    frames = bench_bound.parse_file(path).motion.shape[0]
    run = FileRun(label, str(path), frames, path.stat().st_size, acceptance)
    rounds = args.rounds if frames < LONG_FILE_ROUNDS_FRAMES else args.rounds_long
    print(
        f"\n## {label}: {frames} frames, {run.size_bytes / 2**20:.1f} MiB, {rounds} rounds",
        flush=True,
    )
    t0 = time.perf_counter()
    parse = run_rounds(
        _parse_tasks(contenders, path, frames, rates), rounds, args.budget_s, args.max_call_s
    )
    run.parse = {r.name: r for r in parse}
    print(f"   parse done in {time.perf_counter() - t0:.0f} s", flush=True)
    t0 = time.perf_counter()
    fk_tasks, positions_of = _fk_tasks(contenders, path, frames, run.parse, rates)
    fk = run_rounds(fk_tasks, rounds, args.budget_s, args.max_call_s)
    run.fk = {r.name: r for r in fk}
    print(f"   FK done in {time.perf_counter() - t0:.0f} s", flush=True)
    for op, results in (("parse", run.parse), ("fk", run.fk)):
        for name, res in results.items():
            if res.ok:
                rates[(name, op)] = res.median_s / frames
    _agreement(positions_of, run)
    for res in [*run.parse.values(), *run.fk.values()]:
        res.output = res.setup_out = None  # peers' objects are large; keep only the numbers
    return run


# --- memory ------------------------------------------------------------------------------


def measure_memory(
    run: FileRun, names: list[str], sources: dict[str, Path], max_call_s: float
) -> None:
    """One fresh interpreter per library: peak RSS of load and load+FK (bench_memory.py)."""
    for name in names:
        parse, fk = run.parse.get(name), run.fk.get(name)
        if parse is None or not parse.ok:
            run.memory[name] = {"error": "skipped: parse not timed"}
            continue
        with_fk = fk is not None and fk.ok and fk.median_s <= max_call_s
        cmd = [sys.executable, str(BENCH_DIR / "bench_memory.py"), name, run.path]
        cmd += ["--fk"] if with_fk else []
        cmd += [f"--src={peer}={path}" for peer, path in sources.items()]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=MEMORY_TIMEOUT_S)
            run.memory[name] = json.loads(done.stdout.strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError) as exc:
            run.memory[name] = {"error": f"memory run failed: {type(exc).__name__}"}


# --- output ------------------------------------------------------------------------------


def _result_json(res: Result) -> dict[str, Any]:
    return {
        "samples_s": {str(k): v for k, v in sorted(res.times.items())},
        "median_s": res.median_s if res.ok else None,
        "warmup_s": res.warmup_s,
        "note": res.note,
        "error": res.error,
    }


def write_json(runs: list[FileRun], meta: dict[str, Any], out: Path) -> None:
    """All samples, ratios and environment facts as one JSON file."""
    doc: dict[str, Any] = {"meta": meta, "files": []}
    for run in runs:
        entry: dict[str, Any] = {
            "label": run.label,
            "path": run.path,
            "frames": run.frames,
            "size_bytes": run.size_bytes,
            "joints": run.joints,
            "agreement_m": run.agreement_m,
            "compared": run.compared,
            "memory": run.memory,
        }
        for op, results in (("parse", run.parse), ("fk", run.fk)):
            entry[op] = {
                name: {
                    **_result_json(res),
                    "x_bound": paired_ratio(res, results.get(BOUND)),
                    "x_ours": paired_ratio(res, results.get(OURS)),
                }
                for name, res in results.items()
            }
        doc["files"].append(entry)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))


def print_report(
    runs: list[FileRun], contenders: list[Contender], missing: list[Missing]
) -> list[str]:
    """Print the tables and verdicts; returns the verdict lines."""
    print("\n### Libraries\n")
    for c in contenders:
        print(f"- {c.name} {c.version}: {c.what}")
    for m in missing:
        print(f"- {m.name}: SKIPPED — {m.reason}")
    print("\n### Parse / load (bytes on disk → arrays)\n")
    print(bench_report.parse_table(runs))
    print("\n### Forward kinematics (all joints, all frames)\n")
    print(bench_report.fk_table(runs))
    if any(r.memory for r in runs):
        print("\n### Peak memory (fresh process; RSS peak above the post-import baseline)\n")
        print(bench_report.memory_table(runs))
    lines = bench_report.verdicts(runs)
    print("\n### Acceptance verdicts\n")
    print("\n".join(lines) or "(none: the acceptance files were not run)")
    return lines


# --- main --------------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command-line options (see bench/README.md)."""
    p = argparse.ArgumentParser(description="BVH load/FK benchmark vs peers and a numpy bound.")
    p.add_argument("--setup", action="store_true", help="create bench/.venv with pinned peers")
    p.add_argument("--pymo", type=Path, help="PyMO checkout or bare git dir (or $PYMO_SRC)")
    p.add_argument(
        "--fairmotion", type=Path, help="fairmotion checkout or git dir (or $FAIRMOTION_SRC)"
    )
    p.add_argument("--base", type=Path, default=DEFAULT_BASE, help="the CMU 131_02 file")
    p.add_argument("--repeat", type=int, default=10, help="MOTION repeats for the long file")
    p.add_argument("--files", type=Path, nargs="*", default=[], help="extra BVH files")
    p.add_argument("--no-default-files", action="store_true", help="only the --files")
    p.add_argument("--peers", default="bvhsdk,bvh,bvhio,fairmotion,pymo")
    p.add_argument("--rounds", type=int, default=7, help="rounds for files < 5000 frames")
    p.add_argument("--rounds-long", type=int, default=7, help="rounds for longer files")
    p.add_argument("--budget-s", type=float, default=15.0, help="time per library per op/file")
    p.add_argument("--max-call-s", type=float, default=10.0, help="skip calls predicted longer")
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory processes")
    p.add_argument("--json", type=Path, help="output JSON (default bench/results/<time>.json)")
    p.add_argument("--no-venv", action="store_true", help="do not re-exec into bench/.venv")
    return p.parse_args(argv)


def _files(args: argparse.Namespace, scratch: Path) -> list[tuple[str, Path, bool]]:
    files: list[tuple[str, Path, bool]] = []
    if not args.no_default_files:
        if not args.base.exists():
            sys.exit(
                f"{args.base} is missing: it comes from github yuki-koyama/bvh11 "
                "(resources/131_02.bvh); pass --base PATH"
            )
        long_file = make_repeated(args.base, args.repeat, scratch)
        files += [(args.base.name, args.base, True), (long_file.name, long_file, True)]
    files += [(f.name, f, False) for f in args.files]
    return files


def _contenders(
    args: argparse.Namespace, sources: dict[str, Path]
) -> tuple[list[Contender], list[Missing]]:
    found = [bench_peers.bound()]
    missing: list[Missing] = []
    ours = bench_peers.ours(REPO_ROOT)
    if isinstance(ours, Missing):
        missing.append(ours)
    else:
        found.append(ours)
    names = [n for n in args.peers.split(",") if n]
    peers, not_loaded = bench_peers.load_peers(names, sources)
    return found + peers, missing + not_loaded


def main(argv: list[str]) -> None:
    """Entry point: set up, or benchmark every file and report."""
    args = parse_args(argv)
    if args.setup:
        setup_venv({"pymo": args.pymo, "fairmotion": args.fairmotion})
        return
    if not args.no_venv:
        reexec_in_venv(argv)
    sys.path.insert(0, str(BENCH_DIR))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bvh-bench-") as tmp:
        scratch = Path(tmp)
        given = {"pymo": args.pymo, "fairmotion": args.fairmotion}
        found = {peer: resolve_source(peer, path, scratch) for peer, path in given.items()}
        sources = {peer: path for peer, path in found.items() if path is not None}
        contenders, missing = _contenders(args, sources)
        rates: dict[tuple[str, str], float] = {}
        runs = [
            bench_file(label, path, acc, contenders, args, rates)
            for label, path, acc in _files(args, scratch)
        ]
        if not args.no_memory:
            print("\n## peak memory (one process per library and file)", flush=True)
            for run in runs:
                measure_memory(run, [c.name for c in contenders], sources, args.max_call_s)
        verdict_lines = print_report(runs, contenders, missing)
    elapsed = time.perf_counter() - started
    print(f"\n(total {elapsed:.0f} s)")
    meta = {
        "argv": argv,
        "python": sys.version,
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "elapsed_s": elapsed,
        "verdicts": verdict_lines,
        "libraries": {c.name: c.version for c in contenders},
        "missing": {m.name: m.reason for m in missing},
    }
    out = args.json or RESULTS_DIR / f"bvh_bench-{time.strftime('%Y%m%d-%H%M%S')}.json"
    write_json(runs, meta, out)
    print(f"JSON: {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
