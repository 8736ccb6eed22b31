"""``scripts/run`` as an operator runs it, against a private Redis that a test restarts and a
worker that a test kills (issue 16, finding 1).

One app (SQLite, Redis broker and cache) is started for the module; each test drives it
through the REST API with ``requests`` and reads the runs back from the API. Runs lost
and runs duplicated are counted from the API: a run is lost when it does not finish, and
duplicated when a kind of artifact appears twice or the clip gets a run nobody started.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from .harness import REPO_ROOT, RedisServer, free_port, group_alive, wait_for

SAMPLE = REPO_ROOT / "tests" / "data" / "games105" / "walk60.bvh"
START_TIMEOUT_S = 240
RUN_TIMEOUT_S = 180
STALE_AFTER_S = 5
FINISHED = {"succeeded", "failed"}
DEMO = {"username": "demo", "password": "kinetograph-demo"}  # seed_demo's local log-in


def long_clip(repeat: int) -> bytes:
    """``walk60.bvh`` with its frames played ``repeat`` times: a run of a few seconds."""
    head, motion = SAMPLE.read_text().split("MOTION", 1)
    lines = [line for line in motion.strip().splitlines() if line.strip()]
    frames = lines[2:] * repeat
    return f"{head}MOTION\nFrames: {len(frames)}\n{lines[1]}\n" + "\n".join(frames) + "\n"


@dataclass
class App:
    """A ``scripts/run`` process group and a logged-in API session on it."""

    process: subprocess.Popen[bytes]
    url: str
    log_path: Path
    api: requests.Session

    @property
    def var_dir(self) -> Path:
        return self.log_path.parent / "var"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def get(self, path: str) -> requests.Response:
        return self.api.get(self.url + path, timeout=30)

    def upload(self, project: int, name: str, data: str) -> dict[str, object]:
        files = {"file": (name, data.encode())}
        response = self.api.post(f"{self.url}api/v1/projects/{project}/clips/", files=files)
        assert response.status_code == 201, response.text
        body: dict[str, object] = response.json()
        return body

    def run(self, run_id: int) -> dict[str, object]:
        body: dict[str, object] = self.get(f"api/v1/runs/{run_id}/").json()
        return body


def worker_pids(parent: int) -> list[int]:
    """The Celery worker main processes whose parent is ``parent`` (scripts/run)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if int(fields[1]) == parent and b"celery -A webapp worker" in cmdline:
            found.append(int(stat.parent.name))
    return found


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


def _start(folder: Path, redis_url: str) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = free_port()
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_", "KINETOGRAPH_"))
    }
    environment |= {
        "KINETOGRAPH_VAR_DIR": str(folder / "var"),
        "REDIS_URL": redis_url,
        "PORT": str(port),
        "KINETOGRAPH_RUN_STALE_AFTER_S": str(STALE_AFTER_S),
        "KINETOGRAPH_WORKER_RESTART_MAX_S": "2",
    }
    log_path = folder / "scripts-run.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            ["bash", "scripts/run"],
            cwd=REPO_ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return process, f"http://127.0.0.1:{port}/", log_path


def _answers(url: str) -> bool:
    try:
        return requests.get(url + "accounts/login/", timeout=2).status_code == 200
    except requests.RequestException:
        return False


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, redis_server: RedisServer) -> Iterator[App]:
    folder = tmp_path_factory.mktemp("scripts-run")
    process, url, log_path = _start(folder, redis_server.url)
    try:
        wait_for(lambda: _answers(url), timeout_s=START_TIMEOUT_S, what="scripts/run to answer")
        session = requests.Session()
        token = session.post(url + "api/v1/auth/token/", data=DEMO, timeout=30).json()["token"]
        session.headers["Authorization"] = f"Token {token}"
        yield App(process, url, log_path, session)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=90)
        print(log_path.read_text(errors="replace")[-20000:])
    assert process.returncode == 143, "scripts/run stops cleanly on SIGTERM"
    assert not group_alive(process.pid)


def demo_project(app: App) -> int:
    projects = app.get("api/v1/projects/").json()["results"]
    return int(projects[0]["id"])


def wait_finished(app: App, run_id: int) -> dict[str, object]:
    wait_for(
        lambda: app.run(run_id)["status"] in FINISHED,
        timeout_s=RUN_TIMEOUT_S,
        what=f"run {run_id} to finish",
        interval_s=0.5,
    )
    return app.run(run_id)


def runs_of(app: App, project: int, clip_id: int) -> list[dict[str, object]]:
    body = app.get(f"api/v1/projects/{project}/runs/").json()
    return [run for run in body["results"] if run["clip"] == clip_id]


def assert_once(app: App, project: int, clip_id: int) -> None:
    """The clip has one run, succeeded, with one file per artifact on disk: a retried
    stage replaces its file (the new one may get a storage suffix, ``run7-viewer_AbC12xy
    .json``, while the old is deleted after commit), a duplicated one would add a second."""
    (run,) = runs_of(app, project, clip_id)
    assert run["status"] == "succeeded", run
    folder = app.var_dir / "media" / "projects" / str(project) / "clips" / str(clip_id)
    names = sorted(path.name for path in folder.glob(f"run{run['id']}-*"))
    stems = {re.sub(r"_[A-Za-z0-9]{7}(?=\.)", "", name) for name in names}
    assert len(names) >= 5 and len(stems) == len(names), names


def test_the_app_and_worker_survive_a_redis_restart(app: App, redis_server: RedisServer) -> None:
    """Redis goes away mid-run: every request answers 200 (or 503 with Retry-After, never a
    500), the worker keeps running, the run finishes once, and a run uploaded during the
    outage finishes too: 0 runs lost, 0 duplicated."""
    project = demo_project(app)
    workers_before = worker_pids(app.process.pid)
    created = app.upload(project, "long.bvh", long_clip(40))
    run_id = int(created["run"]["id"])  # type: ignore[index]
    wait_for(lambda: app.run(run_id)["status"] == "running", timeout_s=60, what="the run")

    redis_server.stop()
    statuses = []
    during = None
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        for path in ("", f"api/v1/runs/{run_id}/", f"api/v1/projects/{project}/clips/"):
            response = app.get(path)
            assert response.status_code in (200, 503), (path, response.status_code)
            if response.status_code == 503:
                assert response.headers.get("Retry-After"), path
            statuses.append(response.status_code)
        if during is None:
            during = app.upload(project, "during.bvh", long_clip(2))
        time.sleep(0.3)
    redis_server.start()

    assert during is not None
    finished = wait_finished(app, run_id)
    during_run = wait_finished(app, int(during["run"]["id"]))  # type: ignore[index]
    assert (finished["status"], during_run["status"]) == ("succeeded", "succeeded")
    assert worker_pids(app.process.pid) == workers_before, "the same worker still runs"
    assert "Unrecoverable error" not in app.log()
    after = app.upload(project, "after.bvh", long_clip(3))  # the worker consumes again
    assert wait_finished(app, int(after["run"]["id"]))["status"] == "succeeded"  # type: ignore[index]
    for clip in (created, during, after):
        assert_once(app, project, int(clip["clip"]["id"]))  # type: ignore[index]
    print(
        f"redis restart: requests {len(statuses)}, 503s {statuses.count(503)}, lost 0, duplicated 0"
    )


def test_a_killed_worker_is_started_again(app: App) -> None:
    """SIGKILL the worker and its pool mid-run: scripts/run starts a new worker, which takes
    the run over after the stale threshold; the web server never stopped."""
    project = demo_project(app)
    created = app.upload(project, "killed.bvh", long_clip(80))
    run_id = int(created["run"]["id"])  # type: ignore[index]
    wait_for(lambda: app.run(run_id)["status"] == "running", timeout_s=60, what="the run")
    (worker,) = worker_pids(app.process.pid)
    os.killpg(worker, signal.SIGKILL)
    wait_for(
        lambda: bool(worker_pids(app.process.pid)) and worker_pids(app.process.pid) != [worker],
        timeout_s=30,
        what="scripts/run to start a new worker",
    )
    assert app.get("").status_code == 200
    finished = wait_finished(app, run_id)
    assert (finished["status"], finished["attempts"]) == ("succeeded", 2), finished
    assert "starting it again" in app.log()
    assert_once(app, project, int(created["clip"]["id"]))  # type: ignore[index]
