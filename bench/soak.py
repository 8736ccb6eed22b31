"""Soak: minutes of mixed traffic against ``scripts/run``, checked for 5xx, memory and lost jobs.

    .venv/bin/python bench/soak.py [--minutes 10] [--clients 4] [--redis-url redis://...]

Starts ``scripts/run`` in a scratch ``KINETOGRAPH_VAR_DIR`` on a free port (embedded mode
unless ``--redis-url``), logs in as the demo user and runs ``--clients`` threads, each
doing one request at a time, picked at random by weight: uploads of distinct BVH
clips, analysis reads of finished clips at random α, transitions between finished
clips, score uploads (distinct), bad files (a truncated BVH, a score 3,000 levels
deep, a declared frame count over the limit), run and clip lists. The load is bounded:
at most ``--clients`` requests in flight and at most ``--max-queued`` accepted jobs
not yet finished (new jobs wait for old ones).

The demo user's rate limit is raised to 6000 requests a minute (the soak is about load;
a 429 would be waited out and retried once). Every 2 s it samples the resident memory
(RSS) of the web server's and the worker's process trees. At the end it waits for every
accepted job's run, prints the requests by kind and status, the largest RSS of each
tree, and the jobs accepted / finished / failed, and exits 1 on any 5xx, any job still
unfinished, or a bad file accepted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "tests" / "data"
CLIPS = [SAMPLES / "games105" / name for name in ("walk60.bvh", "run_forward.bvh")]
SCORE = SAMPLES / "scores" / "walk_forward.json"
DEMO = {"username": "demo", "password": "kinetograph-demo"}
FINISHED = ("succeeded", "failed")


@dataclass
class State:
    """What the clients share: the session, finished clips, jobs, counters."""

    url: str
    api: requests.Session
    project: int
    max_queued: int
    clips: list[int] = field(default_factory=list)
    jobs: dict[int, str] = field(default_factory=dict)  # run id -> what made it
    finished: set[int] = field(default_factory=set)
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    wrongly_accepted: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    serial: int = 0

    def next_serial(self) -> int:
        with self.lock:
            self.serial += 1
            return self.serial

    def record(self, kind: str, response: requests.Response) -> requests.Response:
        with self.lock:
            self.statuses[(kind, response.status_code)] += 1
        return response

    def job(self, kind: str, run: object) -> None:
        run_id = run["id"] if isinstance(run, dict) else run
        with self.lock:
            self.jobs[int(str(run_id))] = kind

    def get(self, kind: str, path: str) -> requests.Response:
        """GET ``path``, recorded under ``kind``; a 429 waits its ``Retry-After`` and tries
        once more (the demo user's rate is the deployment's, 600 requests a minute)."""
        response = self.record(kind, self.api.get(self.url + path, timeout=60))
        if response.status_code == 429:
            time.sleep(float(response.headers.get("Retry-After", "1")))
            response = self.record(kind, self.api.get(self.url + path, timeout=60))
        return response

    def pending(self) -> int:
        """Accepted jobs whose run has not finished (the project's newest runs, one request)."""
        response = self.get("list", f"api/v1/projects/{self.project}/runs/")
        if response.status_code != 200:
            return self.max_queued  # assume the worst: no new job now
        done = {r["id"] for r in response.json()["results"] if r["status"] in FINISHED}
        with self.lock:
            self.finished |= done & set(self.jobs)
            return sum(1 for run in self.jobs if run not in self.finished)


def distinct_bvh(state: State) -> tuple[str, bytes]:
    source = random.choice(CLIPS)
    return f"soak-{state.next_serial()}.bvh", source.read_bytes() + b"\n" * state.next_serial()


def upload(state: State) -> None:
    if state.pending() >= state.max_queued:
        time.sleep(1)
        return
    name, data = distinct_bvh(state)
    response = state.record(
        "upload",
        state.api.post(
            f"{state.url}api/v1/projects/{state.project}/clips/",
            files={"file": (name, data)},
            timeout=120,
        ),
    )
    if response.status_code == 201:
        state.job("upload", response.json()["run"])


def score_upload(state: State) -> None:
    if state.pending() >= state.max_queued:
        time.sleep(1)
        return
    score = json.loads(SCORE.read_text())
    score["title"] = f"soak {state.next_serial()}"
    response = state.record(
        "score",
        state.api.post(
            f"{state.url}api/v1/projects/{state.project}/scores/",
            files={"file": ("soak.json", json.dumps(score).encode())},
            timeout=120,
        ),
    )
    if response.status_code == 201:
        state.job("score", response.json()["run"])


def analysis_read(state: State) -> None:
    if not state.clips:
        return
    clip = random.choice(state.clips)
    alpha = round(random.uniform(0.4, 0.9), 2)
    state.get("analysis", f"api/v1/clips/{clip}/analysis/?alpha={alpha}")


def transition(state: State) -> None:
    if len(state.clips) < 2 or state.pending() >= state.max_queued:
        return
    a, b = random.sample(state.clips, 2)
    response = state.record(
        "transition",
        state.api.post(
            f"{state.url}api/v1/transitions/", json={"clip_a": a, "clip_b": b}, timeout=60
        ),
    )
    if response.status_code == 201:
        state.job("transition", response.json()["run"])


BAD_FILES: dict[str, tuple[str, bytes]] = {
    "truncated": ("cut.bvh", CLIPS[0].read_bytes()[:5000]),
    "too many frames": (
        "long.bvh",
        b"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 0\n}\nMOTION\nFrames: 99999999\n"
        b"Frame Time: 0.01\n",
    ),
}


def bad_file(state: State) -> None:
    what = random.choice([*BAD_FILES, "deep score"])
    if what == "deep score":
        body = b'{"format": "kinetograph-score/1", "meta": ' + b"[" * 3000 + b"]" * 3000 + b"}"
        url = f"{state.url}api/v1/projects/{state.project}/scores/"
        response = state.api.post(url, files={"file": ("deep.json", body)}, timeout=60)
    else:
        name, data = BAD_FILES[what]
        url = f"{state.url}api/v1/projects/{state.project}/clips/"
        response = state.api.post(url, files={"file": (name, data)}, timeout=60)
    state.record("bad file", response)
    if response.status_code < 400:
        state.wrongly_accepted.append(what)


def lists(state: State) -> None:
    for path in (f"api/v1/projects/{state.project}/runs/", f"api/v1/projects/{state.project}/"):
        state.get("list", path)


ACTIONS: list[tuple[Callable[[State], None], int]] = [
    (upload, 3),
    (score_upload, 1),
    (analysis_read, 4),
    (transition, 1),
    (bad_file, 2),
    (lists, 3),
]


def refresh_clips(state: State) -> None:
    response = state.get("list", f"api/v1/projects/{state.project}/clips/")
    if response.status_code != 200:
        return
    body = response.json()
    done = [
        c["id"]
        for c in body["results"]
        if (c.get("latest_run") or {}).get("status") == "succeeded" and c["frames"] > 0
    ]
    with state.lock:
        state.clips = done


def client(state: State, deadline: float) -> None:
    functions, weights = zip(*ACTIONS, strict=True)
    while time.monotonic() < deadline:
        action = random.choices(functions, weights)[0]
        try:
            action(state)
        except requests.RequestException as error:  # the server did not answer at all
            state.statuses[(action.__name__, 0)] += 1
            print(f"no answer: {action.__name__}: {error}", file=sys.stderr)
        time.sleep(random.uniform(0.05, 0.3))


def tree_rss_mb(root: int, marker: bytes) -> float:
    """RSS (MB) of the processes under ``root`` whose command line contains ``marker``."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    total = 0
    for pid in parents:
        ancestor = pid
        while ancestor in parents and ancestor != root:
            ancestor = parents[ancestor]
        if ancestor != root:
            continue
        try:
            if marker not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        rss_kb = next(
            (int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")), 0
        )
        total += rss_kb
    return total / 1024


def sample_memory(root: int, stop: threading.Event, peaks: dict[str, float]) -> None:
    while not stop.wait(2.0):
        for name, marker in (("web (gunicorn)", b"gunicorn"), ("worker (celery)", b"celery")):
            peaks[name] = max(peaks.get(name, 0.0), tree_rss_mb(root, marker))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_app(folder: Path, redis_url: str | None) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    environment = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "KINETOGRAPH_", "DATABASE_", "REDIS_"))
    }
    environment |= {"KINETOGRAPH_VAR_DIR": str(folder), "PORT": str(port)}
    environment["KINETOGRAPH_THROTTLE_USER"] = "6000/min"  # the load, not the throttle
    if redis_url:
        environment["REDIS_URL"] = redis_url
    log = (folder / "scripts-run.log").open("wb")
    process = subprocess.Popen(
        ["bash", "scripts/run"], cwd=REPO, env=environment, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if requests.get(url + "accounts/login/", timeout=2).status_code == 200:
                return process, url
        except requests.RequestException:
            pass
        if process.poll() is not None:
            sys.exit(f"scripts/run exited ({process.returncode}); see {folder}/scripts-run.log")
        time.sleep(0.5)
    sys.exit("scripts/run did not answer within 300 s")


def wait_jobs(state: State, timeout_s: float) -> dict[str, int]:
    """Wait for every accepted job's run; the count per status (failures printed)."""
    deadline = time.monotonic() + timeout_s
    runs: list[dict[str, object]] = []
    while time.monotonic() < deadline:
        runs = [state.get("list", f"api/v1/runs/{run}/").json() for run in state.jobs]
        if all(run.get("status") in FINISHED for run in runs):
            break
        time.sleep(5)
    for run in runs:
        if run.get("status") == "failed":
            print(f"failed: {state.jobs[int(str(run['id']))]} run {run['id']}: {run['error']}")
    return dict(Counter(str(run.get("status")) for run in runs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--max-queued", type=int, default=6)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--seed", type=int, default=16)
    options = parser.parse_args()
    random.seed(options.seed)
    folder = Path(tempfile.mkdtemp(prefix="kinetograph-soak-"))
    process, url = start_app(folder, options.redis_url)
    try:
        return soak(options, process, url)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=120)


def soak(options: argparse.Namespace, process: subprocess.Popen[bytes], url: str) -> int:
    api = requests.Session()
    api.headers["Authorization"] = (
        "Token " + api.post(url + "api/v1/auth/token/", data=DEMO, timeout=30).json()["token"]
    )
    project = int(api.get(url + "api/v1/projects/", timeout=30).json()["results"][0]["id"])
    state = State(url, api, project, options.max_queued)
    stop, peaks = threading.Event(), {}
    sampler = threading.Thread(target=sample_memory, args=(process.pid, stop, peaks), daemon=True)
    sampler.start()
    deadline = time.monotonic() + options.minutes * 60
    clients = [
        threading.Thread(target=client, args=(state, deadline)) for _ in range(options.clients)
    ]
    for thread in clients:
        thread.start()
    while any(thread.is_alive() for thread in clients):
        refresh_clips(state)
        time.sleep(5)
    outcome = wait_jobs(state, timeout_s=600)
    stop.set()
    return report(state, outcome, peaks, options)


def report(
    state: State, outcome: dict[str, int], peaks: dict[str, float], options: argparse.Namespace
) -> int:
    requests_made = sum(state.statuses.values())
    print(f"soak: {options.minutes:g} min, {options.clients} clients, {requests_made} requests")
    for (kind, status), count in sorted(state.statuses.items()):
        print(f"  {kind:<11} {status:>3}  {count}")
    errors = sum(
        count for (_, status), count in state.statuses.items() if status >= 500 or status == 0
    )
    unfinished = len(state.jobs) - outcome.get("succeeded", 0) - outcome.get("failed", 0)
    print(f"5xx or no answer: {errors}")
    for name, mb in sorted(peaks.items()):
        print(f"max RSS {name}: {mb:.0f} MB")
    kinds = Counter(state.jobs.values())
    succeeded, failed = outcome.get("succeeded", 0), outcome.get("failed", 0)
    print(
        f"jobs accepted: {len(state.jobs)} ({dict(kinds)}); succeeded {succeeded}, "
        f"failed {failed}, unfinished {unfinished}"
    )
    print(f"bad files accepted: {state.wrongly_accepted or 'none'}")
    return 1 if errors or unfinished or state.wrongly_accepted else 0


if __name__ == "__main__":
    sys.exit(main())
