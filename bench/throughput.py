"""Throughput of the job pipeline: concurrent uploads through the HTTP API to finished runs.

    .venv/bin/python bench/throughput.py [--uploads 50] [--workers 2] [--timeout-s 600]

Starts everything it needs, on loopback addresses only, and stops it all at the end:
a private ``redis-server`` on a free port (or ``--redis-url``), a scratch PostgreSQL
database created on the server of ``--database-url`` (default ``$DATABASE_URL``, else
``postgresql://postgres@127.0.0.1:5432/postgres``) and dropped afterwards, gunicorn
on a free port, and ``--workers`` Celery workers (prefork, concurrency 1 each). It
makes a user and a project through the API, uploads ``--uploads`` distinct copies of
``tests/data/games105/walk60.bvh`` (each with a different number of trailing newlines,
so each has its own sha256) from as many threads at once, and waits for every run.

Prints runs per minute (from the first upload to the last run's ``finished_at``) and
the p50/p95 latency from the start of an upload to its run's ``finished_at``. Exits 1
if any upload or run failed, or if the runs did not finish within ``--timeout-s``.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "tests" / "data" / "games105" / "walk60.bvh"
PY = sys.executable
READY_TIMEOUT_S = 60
FINISHED = ("succeeded", "failed")
LOOPBACK_NAMES = {"localhost", ""}  # "" = a Unix socket (PostgreSQL's default)


# --- processes ------------------------------------------------------------------------------------


@dataclass
class Processes:
    """What this script started; :meth:`stop_all` stops it in reverse order."""

    folder: Path
    started: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)

    def start(self, name: str, command: list[str], env: dict[str, str]) -> Path:
        log = self.folder / f"{name}.log"
        with log.open("ab") as out:
            process = subprocess.Popen(
                command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: stop it with its children
            )  # fmt: skip
        self.started.append((name, process))
        return log

    def check_alive(self) -> None:
        for name, process in self.started:
            if process.poll() is not None:
                log = (self.folder / f"{name}.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"{name} exited ({process.returncode}):\n{log}")

    def stop_all(self, grace_s: float = 20) -> None:
        """Workers first (their warm shutdown still needs Redis), Redis last."""
        while self.started:
            _, process = self.started.pop()
            _signal_group(process, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=grace_s)
            _signal_group(process, signal.SIGKILL)  # whatever is left of its group
            process.wait()


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signum)


def wait_until(
    check: Callable[[], bool], what: str, processes: Processes, timeout_s: float
) -> None:
    """Poll ``check()`` until true, failing if a process this script started died."""
    deadline = time.monotonic() + timeout_s
    while not check():
        processes.check_alive()
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def require_loopback(url: str) -> None:
    host = urlsplit(url).hostname or ""
    if host in LOOPBACK_NAMES or host.startswith("/"):
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"refusing {url!r}: this benchmark only talks to loopback addresses")


# --- services -------------------------------------------------------------------------------------


def start_redis(processes: Processes) -> str:
    executable = shutil.which("redis-server")
    if executable is None:
        raise SystemExit("redis-server is not installed: pass --redis-url redis://127.0.0.1:...")
    port = free_port()
    processes.start(
        "redis",
        [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(processes.folder)],
        dict(os.environ),
    )  # fmt: skip
    wait_until(lambda: _connects(port), "redis-server", processes, READY_TIMEOUT_S)
    return f"redis://127.0.0.1:{port}/0"


def _connects(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))


def create_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def drop_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
        conn.execute(drop.format(sql.Identifier(name)))


def app_env(database_url: str, redis_url: str, var_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "KINETOGRAPH_DEBUG": "0",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "KINETOGRAPH_VAR_DIR": str(var_dir),
        "KINETOGRAPH_THROTTLE_UPLOADS": "100000/min",
        "KINETOGRAPH_THROTTLE_USER": "100000/min",
        "KINETOGRAPH_THROTTLE_ANON": "100000/min",
        "KINETOGRAPH_LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }


def prepare_app(env: dict[str, str], password: str) -> None:
    """Migrate the scratch database and create the benchmark's user."""
    django = [PY, "-m", "django"]
    subprocess.run([*django, "migrate", "--noinput", "-v", "0"], cwd=REPO, env=env, check=True)
    create = (
        "from django.contrib.auth.models import User; "
        f"User.objects.create_user('bench', password={password!r})"
    )
    subprocess.run([*django, "shell", "-v", "0", "-c", create], cwd=REPO, env=env, check=True)


def start_web(processes: Processes, env: dict[str, str], workers: int) -> str:
    port = free_port()
    processes.start(
        "gunicorn",
        [PY, "-m", "gunicorn", "webapp.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", str(workers), "--threads", "8", "--timeout", "120"],
        env,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    wait_until(lambda: _answers(f"{base}/api/v1/projects/"), "gunicorn", processes, 60)
    return base


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=2)
    except urllib.error.HTTPError:
        return True  # 401: it is up
    except OSError:
        return False
    return True


def start_workers(processes: Processes, env: dict[str, str], count: int) -> None:
    logs = []
    for i in range(count):
        command = [
            PY, "-m", "celery", "-A", "webapp", "worker", "--pool=prefork", "--concurrency=1",
            "-Q", "celery", "--loglevel=INFO", "-n", f"bench{i}-{os.getpid()}@%h",
            "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        logs.append(processes.start(f"worker{i}", command, env))

    def ready() -> bool:
        return all(" ready." in log.read_text(errors="replace") for log in logs)

    wait_until(ready, "the Celery workers", processes, READY_TIMEOUT_S)


# --- the API --------------------------------------------------------------------------------------


@dataclass
class Api:
    base: str
    token: str = ""

    def call(self, method: str, path: str, body: bytes | None = None, **headers: str) -> object:
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(self.base + path, body, headers, method=method)
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())

    def post_json(self, path: str, payload: dict[str, object]) -> dict[str, object]:
        data = json.dumps(payload).encode()
        answer = self.call("POST", path, data, **{"Content-Type": "application/json"})
        assert isinstance(answer, dict)
        return answer

    def upload(self, project_id: int, name: str, data: bytes) -> dict[str, object]:
        boundary = secrets.token_hex(16)
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        body = head + data + f"\r\n--{boundary}--\r\n".encode()
        content_type = f"multipart/form-data; boundary={boundary}"
        path = f"/api/v1/projects/{project_id}/clips/"
        answer = self.call("POST", path, body, **{"Content-Type": content_type})
        assert isinstance(answer, dict)
        return answer

    def runs(self, project_id: int) -> list[dict[str, object]]:
        runs: list[dict[str, object]] = []
        page: str | None = f"/api/v1/projects/{project_id}/runs/"
        while page:
            answer = self.call("GET", page)
            assert isinstance(answer, dict)
            runs.extend(answer["results"])
            following = urlsplit(answer["next"]) if answer["next"] else None
            page = f"{following.path}?{following.query}" if following else None
        return runs


# --- the measurement ------------------------------------------------------------------------------


@dataclass
class Upload:
    started: float  # time.time() when the request began
    answered: float = 0.0
    run_id: int | None = None
    error: str = ""


def variants(count: int, first: int = 0) -> list[bytes]:
    """``count`` valid, distinct copies of the sample (trailing newlines differ)."""
    data = SAMPLE.read_bytes().rstrip()
    return [data + b"\n" * (i + 1) for i in range(first, first + count)]


def upload_all(api: Api, project_id: int, payloads: list[bytes]) -> list[Upload]:
    def one(index: int) -> Upload:
        upload = Upload(started=time.time())
        try:
            answer = api.upload(project_id, f"walk60-{index:03d}.bvh", payloads[index])
            run = answer.get("run")
            upload.run_id = int(run["id"]) if isinstance(run, dict) else None
        except (OSError, ValueError, KeyError) as error:
            upload.error = str(error)
        upload.answered = time.time()
        return upload

    with ThreadPoolExecutor(max_workers=len(payloads)) as pool:
        return list(pool.map(one, range(len(payloads))))


def wait_for_runs(
    api: Api, project_id: int, ids: set[int], processes: Processes, timeout_s: float
) -> dict[int, dict[str, object]]:
    deadline = time.monotonic() + timeout_s
    while True:
        runs = {int(str(r["id"])): r for r in api.runs(project_id) if r["id"] in ids}
        pending = sorted(i for i in ids if i not in runs or runs[i]["status"] not in FINISHED)
        if not pending:
            return runs
        processes.check_alive()
        if time.monotonic() > deadline:
            raise RuntimeError(f"runs not finished after {timeout_s:g} s: {pending}")
        time.sleep(0.5)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = q / 100 * (len(ordered) - 1)
    low, high = int(rank), min(int(rank) + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def report(label: str, uploads: list[Upload], runs: dict[int, dict[str, object]]) -> int:
    """Print the numbers; return the exit status (1 if anything failed)."""
    failed_uploads = [u for u in uploads if u.run_id is None]
    finished = {
        u.run_id: datetime.fromisoformat(str(runs[u.run_id]["finished_at"])).timestamp()
        for u in uploads
        if u.run_id is not None
    }
    latencies = [finished[u.run_id] - u.started for u in uploads if u.run_id is not None]
    answer_s = [u.answered - u.started for u in uploads]
    failed_runs = [r for r in runs.values() if r["status"] != "succeeded"]
    span_s = max(finished.values()) - min(u.started for u in uploads) if finished else 0.0
    print(f"--- {label}")
    print(f"uploads: {len(uploads)} concurrent, {len(failed_uploads)} failed")
    print(f"runs: {len(runs)}, {len(failed_runs)} failed")
    print(f"upload answered in: p50 {percentile(answer_s, 50):.2f} s, "
          f"p95 {percentile(answer_s, 95):.2f} s")  # fmt: skip
    if latencies:
        print(f"throughput: {len(latencies) / span_s * 60:.1f} runs/min ({span_s:.1f} s in all)")
        print(f"upload-to-result latency: p50 {percentile(latencies, 50):.2f} s, "
              f"p95 {percentile(latencies, 95):.2f} s, max {max(latencies):.2f} s")  # fmt: skip
    for upload in failed_uploads:
        print(f"FAILED upload: {upload.error}")
    for run in failed_runs:
        print(f"FAILED run {run['id']}: {run['status']} {run['error']!r}")
    return 1 if failed_uploads or failed_runs else 0


def phase(
    api: Api, project_id: int, payloads: list[bytes], processes: Processes, timeout_s: float
) -> tuple[list[Upload], dict[int, dict[str, object]]]:
    """Upload ``payloads`` all at once and wait for their runs."""
    uploads = upload_all(api, project_id, payloads)
    ids = {u.run_id for u in uploads if u.run_id is not None}
    return uploads, wait_for_runs(api, project_id, ids, processes, timeout_s)


def measure(api: Api, args: argparse.Namespace, processes: Processes, password: str) -> int:
    credentials: dict[str, object] = {"username": "bench", "password": password}
    api.token = str(api.post_json("/api/v1/auth/token/", credentials)["token"])
    project = api.post_json("/api/v1/projects/", {"name": "throughput"})
    project_id = int(str(project["id"]))
    status = 0
    if args.warmup:
        warm = phase(api, project_id, variants(args.warmup), processes, args.timeout_s)
        status |= report(f"warm-up: {args.warmup} uploads into cold processes", *warm)
    payloads = variants(args.uploads, first=args.warmup)
    measured = phase(api, project_id, payloads, processes, args.timeout_s)
    label = f"measured: {args.workers} workers x concurrency 1, {args.web_workers} web workers"
    return status | report(label, *measured)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(143)  # run the clean-up in main()'s finally


def main() -> int:
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="Celery workers (concurrency 1)")
    parser.add_argument("--web-workers", type=int, default=4, help="gunicorn processes")
    parser.add_argument(
        "--warmup",
        type=int,
        default=16,
        help="uploads first, not measured: each new process loads motioncore and compiles "
        "its numba parser (about 1.5 s) on its first file",
    )
    parser.add_argument("--timeout-s", type=float, default=600)
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
        help="a PostgreSQL server to create the scratch database on (its path is ignored "
        "except to connect for CREATE/DROP DATABASE)",
    )
    parser.add_argument("--redis-url", help="use this Redis instead of starting one")
    args = parser.parse_args()
    admin_url = with_database(args.database_url, "postgres")
    require_loopback(admin_url)
    if args.redis_url:
        require_loopback(args.redis_url)
    name = f"kinetograph_bench_{os.getpid()}"
    password = secrets.token_urlsafe(16)
    folder = Path(tempfile.mkdtemp(prefix="kinetograph-bench-"))
    processes = Processes(folder)
    created = False
    status = 1
    try:
        redis_url = args.redis_url or start_redis(processes)
        create_database(admin_url, name)
        created = True
        env = app_env(with_database(args.database_url, name), redis_url, folder / "var")
        prepare_app(env, password)
        api = Api(start_web(processes, env, args.web_workers))
        start_workers(processes, env, args.workers)
        print(f"gunicorn at {api.base}, Redis at {redis_url}, database {name}")
        status = measure(api, args, processes, password)
        return status
    finally:
        processes.stop_all()
        if created:
            drop_database(admin_url, name)
        if status == 0:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"logs kept in {folder}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
