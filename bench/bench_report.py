"""Markdown tables and acceptance verdicts from the benchmark's results.

All ratios are *paired*: the median over rounds of (time of A / time of B) in
the same round. ``x bound`` is a library against the numpy lower bound (parse)
or the numpy reference FK; ``x ours`` is a library against ``motioncore``
(how many times slower than ours it is; below 1 means faster than ours).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bench_peers import BOUND, OURS
from bench_timing import Result, paired_ratio

LOAD_VS_BOUND_MAX = 1.5
LOAD_VS_FASTEST_PEER_MIN = 5.0
FK_US_PER_FRAME_MAX = 15.0
FK_VS_REFERENCE_MAX = 1.0
FK_VS_FASTEST_PEER_MIN = 20.0
MEMORY_VS_FILE_MAX = 5.0
FK_AGREEMENT_MAX_M = 1e-6
"""Targets from the benchmark issue's acceptance criteria (see bench/README.md)."""


@dataclass
class FileRun:
    """Everything measured on one file."""

    label: str
    path: str
    frames: int
    size_bytes: int
    acceptance: bool
    parse: dict[str, Result] = field(default_factory=dict)
    fk: dict[str, Result] = field(default_factory=dict)
    joints: dict[str, int] = field(default_factory=dict)
    agreement_m: dict[str, float] = field(default_factory=dict)
    compared: dict[str, str] = field(default_factory=dict)
    units: str = "m"
    memory: dict[str, dict[str, Any]] = field(default_factory=dict)


def _f(value: float | None, fmt: str = ".2f") -> str:
    return "-" if value is None else format(value, fmt)


def _cell(res: Result) -> list[str] | None:
    if res.error is not None:
        return [f"error: {res.error}"]
    if not res.ok:
        return [res.note or "not run"]
    return None


def parse_table(runs: list[FileRun]) -> str:
    """The parse/load table: medians, frames/s and paired ratios."""
    head = "| file | library | n | median ms | spread % | k frames/s | x bound | x ours |"
    rows = [head, "|---|---|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        for name, res in run.parse.items():
            bad = _cell(res)
            if bad:
                rows.append(f"| {run.label} | {name} | {bad[0]} ||||||")
                continue
            rows.append(
                f"| {run.label} | {name} | {len(res.times)} | {res.median_s * 1e3:.1f} "
                f"| {res.spread * 100:.0f} | {run.frames / res.median_s / 1e3:.1f} "
                f"| {_f(paired_ratio(res, run.parse.get(BOUND)))} "
                f"| {_f(paired_ratio(res, run.parse.get(OURS)))} |"
            )
    return "\n".join(rows)


def fk_table(runs: list[FileRun]) -> str:
    """The FK table: µs/frame, paired ratios and agreement with the reference FK."""
    head = (
        "| file | library | joints | n | median ms | spread % | µs/frame | k frames/s "
        "| x ref | x ours | max abs Δ vs ref |"
    )
    rows = [head, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for run in runs:
        for name, res in run.fk.items():
            bad = _cell(res)
            if bad:
                rows.append(f"| {run.label} | {name} | {bad[0]} |||||||||")
                continue
            rows.append(
                f"| {run.label} | {name} | {run.joints.get(name, '?')} | {len(res.times)} "
                f"| {res.median_s * 1e3:.1f} | {res.spread * 100:.0f} "
                f"| {res.median_s / run.frames * 1e6:.2f} | {run.frames / res.median_s / 1e3:.2f} "
                f"| {_f(paired_ratio(res, run.fk.get(BOUND)))} "
                f"| {_f(paired_ratio(res, run.fk.get(OURS)))} "
                f"| {_agreement(run, name)} |"
            )
    return "\n".join(rows)


def _agreement(run: FileRun, name: str) -> str:
    diff = run.agreement_m.get(name)
    note = run.compared.get(name, "")
    return f"{diff:.1e} {run.units} ({note})" if diff is not None else note or "-"


def memory_table(runs: list[FileRun]) -> str:
    """Peak RSS above the post-import baseline, against the file size on disk."""
    head = (
        "| file | MiB on disk | library | import ms | peak load MiB | load x file "
        "| peak load+FK MiB | load+FK x file |"
    )
    rows = [head, "|---|---:|---|---:|---:|---:|---:|---:|"]
    for run in runs:
        size_mb = run.size_bytes / 2**20
        for name, mem in run.memory.items():
            if "error" in mem:
                rows.append(f"| {run.label} | {size_mb:.1f} | {name} | {mem['error']} |||||")
                continue
            load, fk = mem["peak_load_mb"], mem.get("peak_fk_mb")
            rows.append(
                f"| {run.label} | {size_mb:.1f} | {name} | {mem['import_ms']:.0f} "
                f"| {load:.1f} | {load / size_mb:.2f} | {_f(fk, '.1f')} "
                f"| {_f(None if fk is None else fk / size_mb)} |"
            )
    return "\n".join(rows)


def _verdict(ok: bool | None, text: str) -> str:
    return f"{'SKIP' if ok is None else 'PASS' if ok else 'FAIL'}  {text}"


def _fastest_peer(results: dict[str, Result], ours: Result | None) -> tuple[str, float | None]:
    ratios = {
        name: paired_ratio(res, ours)
        for name, res in results.items()
        if name != BOUND and not name.startswith(OURS) and res.ok
    }
    known = {k: v for k, v in ratios.items() if v is not None}
    if not known:
        return "none", None
    name = min(known, key=lambda k: known[k])
    return name, known[name]


def _load_verdicts(run: FileRun) -> list[str]:
    ours = run.parse.get(OURS)
    vs_bound = paired_ratio(ours, run.parse.get(BOUND))
    peer, vs_peer = _fastest_peer(run.parse, ours)
    return [
        _verdict(
            None if vs_bound is None else vs_bound <= LOAD_VS_BOUND_MAX,
            f"{run.label}: load {_f(vs_bound)}x the numpy bound (target ≤ {LOAD_VS_BOUND_MAX}x)",
        ),
        _verdict(
            None if vs_peer is None else vs_peer >= LOAD_VS_FASTEST_PEER_MIN,
            f"{run.label}: load {_f(vs_peer)}x faster than the fastest peer parse ({peer}) "
            f"(target ≥ {LOAD_VS_FASTEST_PEER_MIN}x)",
        ),
    ]


def _fk_verdicts(run: FileRun, name: str) -> list[str]:
    ours = run.fk.get(name)
    us = ours.median_s / run.frames * 1e6 if ours is not None and ours.ok else None
    vs_ref = paired_ratio(ours, run.fk.get(BOUND))
    peer, vs_peer = _fastest_peer(run.fk, ours)
    what = f"{run.label}: FK ({name})"
    return [
        _verdict(
            None if us is None else us <= FK_US_PER_FRAME_MAX,
            f"{what} {_f(us)} µs/frame for {run.joints.get(name, '?')} joints "
            f"(target ≤ ~{FK_US_PER_FRAME_MAX:g} µs for 31 joints + end sites)",
        ),
        _verdict(
            None if vs_ref is None else vs_ref <= FK_VS_REFERENCE_MAX,
            f"{what} {_f(vs_ref)}x the vectorised numpy reference FK "
            f"(target ≤ {FK_VS_REFERENCE_MAX:g}x)",
        ),
        _verdict(
            None if vs_peer is None else vs_peer >= FK_VS_FASTEST_PEER_MIN,
            f"{what} {_f(vs_peer, '.1f')}x faster than the fastest peer FK ({peer}) "
            f"(target ≥ {FK_VS_FASTEST_PEER_MIN:g}x)",
        ),
    ]


def _other_verdicts(run: FileRun, memory_file: bool) -> list[str]:
    lines = []
    diff = run.agreement_m.get(OURS)
    lines.append(
        _verdict(
            None if diff is None else diff <= FK_AGREEMENT_MAX_M,
            f"{run.label}: our FK vs numpy reference FK max abs Δ {_agreement(run, OURS)} "
            f"(target ≤ {FK_AGREEMENT_MAX_M:g} m)",
        )
    )
    if memory_file:
        mem = run.memory.get(OURS, {})
        size_mb = run.size_bytes / 2**20
        load = mem.get("peak_load_mb")
        ratio = None if load is None else load / size_mb
        lines.append(
            _verdict(
                None if ratio is None else ratio < MEMORY_VS_FILE_MAX,
                f"{run.label}: peak memory of load {_f(load, '.1f')} MiB = {_f(ratio)}x the "
                f"{size_mb:.1f} MiB file (target < {MEMORY_VS_FILE_MAX:g}x)",
            )
        )
        fk = mem.get("peak_fk_mb")
        lines.append(
            f"info  {run.label}: peak memory of load+FK {_f(fk, '.1f')} MiB = "
            f"{_f(None if fk is None else fk / size_mb)}x the file"
        )
    return lines


def verdicts(runs: list[FileRun]) -> list[str]:
    """PASS/FAIL/SKIP lines for each acceptance target on each acceptance file."""
    lines: list[str] = []
    accepted = [r for r in runs if r.acceptance]
    largest = max(accepted, key=lambda r: r.frames) if accepted else None
    for run in accepted:
        lines += _load_verdicts(run)
        for name in [n for n in run.fk if n.startswith(OURS)]:
            lines += _fk_verdicts(run, name)
        lines += _other_verdicts(run, memory_file=run is largest)
    return lines
