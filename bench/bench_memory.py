"""Peak memory of one (library, file) in a fresh interpreter.

``python bench/bench_memory.py LIB FILE [--fk] [--src PEER=DIR ...]`` imports
the library, records the resident set size (RSS) after the imports as the
baseline, loads FILE (and runs FK with ``--fk``), and prints one JSON object:
``import_ms``, ``baseline_mb``, ``peak_load_mb`` and ``peak_fk_mb`` (peak RSS
minus the baseline; the FK figure covers load + FK). The parent
(``bvh_bench.py``) runs one such process per (library, file) and compares the
peaks with the file size on disk.

The peak is the kernel's RSS high-water mark of this process image (``VmHWM``
in ``/proc/self/status``), reset to the current RSS after the imports by
writing ``5`` to ``/proc/self/clear_refs``. ``resource.getrusage().ru_maxrss``
is not used directly on Linux because it keeps the *parent's* peak across
fork + exec (the benchmark process is hundreds of MB), so it would report that
instead; it is the fallback where ``/proc`` lacks these files.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

MB = 1024.0 * 1024.0
REPO_ROOT = Path(__file__).resolve().parent.parent


def current_rss_bytes() -> int:
    """The process's resident set size now (``/proc/self/statm``)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def reset_peak() -> bool:
    """Reset the RSS high-water mark to the current RSS (Linux ≥ 4.0); False if unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss_bytes() -> int:
    """Peak RSS of this process image (``VmHWM``; ``ru_maxrss`` if /proc lacks it)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _contender(lib: str, sources: dict[str, Path]) -> Any:
    import bench_peers

    if lib == bench_peers.BOUND:
        return bench_peers.bound()
    if lib == bench_peers.OURS:
        found = bench_peers.ours(REPO_ROOT)
        if isinstance(found, bench_peers.Missing):
            raise ImportError(found.reason)
        return found
    peers, missing = bench_peers.load_peers([lib], sources)
    if missing:
        raise ImportError(missing[0].reason)
    return peers[0]


def measure(
    lib: str, path: Path, with_fk: bool, sources: dict[str, Path]
) -> dict[str, float | bool | None]:
    """Import ``lib``, load ``path`` (and FK), and return the peaks above the baseline, MB."""
    start = time.perf_counter()
    contender = _contender(lib, sources)
    import_ms = (time.perf_counter() - start) * 1e3
    gc.collect()
    reset = reset_peak()
    baseline = current_rss_bytes()
    parsed = contender.parse(path)
    peak_load = peak_rss_bytes()
    peak_fk = None
    if with_fk and contender.fk is not None:
        contender.fk(parsed)
        peak_fk = (peak_rss_bytes() - baseline) / MB
    return {
        "import_ms": import_ms,
        "baseline_mb": baseline / MB,
        "peak_load_mb": (peak_load - baseline) / MB,
        "peak_fk_mb": peak_fk,
        "peak_reset": reset,
    }


def main() -> None:
    """Command-line entry point of the worker (prints one JSON line)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lib")
    parser.add_argument("file", type=Path)
    parser.add_argument("--fk", action="store_true")
    parser.add_argument("--src", action="append", default=[], help="PEER=DIR of a git peer")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sources = {k: Path(v) for k, v in (s.split("=", 1) for s in args.src)}
    print(json.dumps(measure(args.lib, args.file, args.fk, sources)))


if __name__ == "__main__":
    main()
