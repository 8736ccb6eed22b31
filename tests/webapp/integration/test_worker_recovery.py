"""Runs against a real Celery worker, real Redis and real PostgreSQL: success, and recovery
from a worker killed with SIGKILL, a killed pool process and a Redis restart.

Slow runs use the test-only ``itest_pause`` stage (see ``itest_worker.py``): it pauses
on the first attempt only, so a test can interrupt a run at a known point and the
retry finishes quickly.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import AbstractUser, User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from motioncore import bvh
from webapp.clips.models import Artifact, ArtifactKind, Clip
from webapp.clips.services import DEFAULT_STAGES, clip_upload_create
from webapp.projects.models import Project
from webapp.runs.models import FINISHED, Run, Status
from webapp.runs.services import run_start

from .harness import PAUSE_STAGE, STALE_AFTER_S, RedisServer, Worker, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "games105" / "walk60.bvh"
ALL_KINDS = sorted(kind.value for kind in ArtifactKind)  # what an upload's pipeline stores
RUN_TIMEOUT_S = 60
SLOW_STAGES = ["ingest", PAUSE_STAGE, "clean", "analyze"]

StartWorker = Callable[[str], Worker]


@pytest.fixture
def editor(members: dict[str, AbstractUser]) -> User:
    user = members["editor"]
    assert isinstance(user, User)
    return user


def upload(project: Project, editor: User) -> Clip:
    """Upload the sample clip; its first run is queued and its message sent on commit."""
    data = SAMPLE.read_bytes()
    result = clip_upload_create(project=project, user=editor, name=SAMPLE.name, data=data)
    assert result.created
    return result.clip


def slow_run(clip: Clip, editor: User, pause_s: float, *, quiet: bool = False) -> Run:
    parameters: dict[str, object] = {"pause_s": pause_s, "quiet": quiet}
    return run_start(clip=clip, user=editor, stages=SLOW_STAGES, parameters=parameters)


def wait_finished(*runs: Run, timeout_s: float = RUN_TIMEOUT_S) -> list[Run]:
    ids = [run.pk for run in runs]
    wait_for(
        lambda: Run.objects.filter(pk__in=ids, status__in=FINISHED).count() == len(ids),
        timeout_s=timeout_s,
        what=f"runs {ids} to finish",
    )
    return [Run.objects.get(pk=pk) for pk in ids]


def wait_pausing(run: Run) -> Run:
    wait_for(
        lambda: Run.objects.get(pk=run.pk).stage.startswith("Pausing (attempt 1)"),
        timeout_s=RUN_TIMEOUT_S,
        what=f"run {run.pk} to reach the pause stage",
    )
    return Run.objects.get(pk=run.pk)


def assert_succeeded_once(run: Run) -> None:
    """Succeeded, with exactly one artifact per kind and no other file of this run on disk."""
    assert run.status == Status.SUCCEEDED, run.error
    artifacts = list(Artifact.objects.filter(run=run))
    assert sorted(a.kind for a in artifacts) == ALL_KINDS
    folder = Path(settings.MEDIA_ROOT) / "projects" / str(run.clip.project_id) / "clips"
    on_disk = sorted(p.name for p in folder.glob(f"{run.clip_id}/run{run.pk}-*"))
    assert on_disk == sorted(Path(str(a.file.name)).name for a in artifacts)
    for artifact in artifacts:
        with artifact.file.open("rb") as handle:
            data = handle.read()
        assert hashlib.sha256(data).hexdigest() == artifact.sha256
        assert len(data) == artifact.size_bytes


def test_an_upload_runs_to_success(
    broker_url: str, start_worker: StartWorker, project: Project, editor: User
) -> None:
    start_worker(broker_url)
    clip = upload(project, editor)
    (run,) = wait_finished(clip.runs.get())
    assert_succeeded_once(run)
    assert run.attempts == 1 and run.progress == 100
    assert set(run.timings) == set(DEFAULT_STAGES)  # jsonb: keys in its own order
    cleaned = run.artifacts.get(kind=ArtifactKind.CLEANED_BVH)
    with cleaned.file.open("rb") as handle:
        motion = bvh.load(handle.read())
    assert motion.num_frames == clip.frames
    assert motion.skeleton.names == bvh.load(SAMPLE.read_bytes()).skeleton.names
    with run.artifacts.get(kind=ArtifactKind.CLEAN_REPORT).file.open("rb") as handle:
        assert json.load(handle)["frames_in"] == clip.frames


def test_an_upload_through_the_api_is_downloadable(
    broker_url: str, start_worker: StartWorker, project: Project, editor: User
) -> None:
    start_worker(broker_url)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=editor).key}")
    upload = SimpleUploadedFile(SAMPLE.name, SAMPLE.read_bytes())
    created = client.post(f"/api/v1/projects/{project.pk}/clips/", {"file": upload})
    assert created.status_code == 201, created.content
    clip_id, run_id = created.json()["clip"]["id"], created.json()["run"]["id"]
    wait_for(
        lambda: client.get(f"/api/v1/runs/{run_id}/").json()["status"] in FINISHED,
        timeout_s=RUN_TIMEOUT_S,
        what=f"run {run_id} to finish (polling the API)",
    )
    run = client.get(f"/api/v1/runs/{run_id}/").json()
    assert (run["status"], run["progress"], run["attempts"]) == ("succeeded", 100, 1), run

    def download(name: str) -> bytes:
        response = client.get(f"/api/v1/clips/{clip_id}/download/{name}/")
        assert response.status_code == 200, (name, response.status_code)
        return b"".join(response.streaming_content)

    assert download("original") == SAMPLE.read_bytes()
    cleaned = bvh.load(download("cleaned.bvh"))
    assert cleaned.num_frames == Clip.objects.get(pk=clip_id).frames
    assert json.loads(download("clean-report.json"))["frames_in"] == cleaned.num_frames
    assert json.loads(download("viewer.json"))


def test_a_long_quiet_stage_keeps_its_run(
    broker_url: str, start_worker: StartWorker, project: Project, editor: User
) -> None:
    """A stage that reports no progress for longer than the stale threshold is not taken
    over while its worker lives: the heartbeat thread keeps the run fresh."""
    start_worker(broker_url)
    clip = upload(project, editor)
    run = slow_run(clip, editor, pause_s=2 * STALE_AFTER_S, quiet=True)
    (finished,) = wait_finished(run)
    assert (finished.status, finished.attempts) == (Status.SUCCEEDED, 1)
    assert finished.timings[PAUSE_STAGE] >= 2 * STALE_AFTER_S


def test_a_run_of_a_killed_worker_is_finished_by_the_next(
    broker_url: str, start_worker: StartWorker, project: Project, editor: User
) -> None:
    first = start_worker(broker_url)
    clip = upload(project, editor)
    run = wait_pausing(slow_run(clip, editor, pause_s=600))
    assert Artifact.objects.filter(run=run, kind=ArtifactKind.CANONICAL).exists()  # ingest done
    first.kill()  # worker and pool child, SIGKILL: no ack, no cleanup, heartbeat stops
    left = Run.objects.get(pk=run.pk)
    assert (left.status, left.attempts) == (Status.RUNNING, 1)

    start_worker(broker_url)
    finished, first_run = wait_finished(run, clip.runs.order_by("pk").first() or run)
    assert finished.attempts == 2
    assert_succeeded_once(finished)
    assert_succeeded_once(first_run)


def test_a_run_of_a_killed_pool_process_is_retried(
    broker_url: str, start_worker: StartWorker, project: Project, editor: User
) -> None:
    worker = start_worker(broker_url)
    clip = upload(project, editor)
    run = wait_pausing(slow_run(clip, editor, pause_s=600))
    child_pid = int(run.worker.rsplit(":", 1)[1])
    os.kill(child_pid, signal.SIGKILL)  # e.g. the kernel's OOM killer
    (finished,) = wait_finished(run)
    assert finished.attempts == 2
    assert_succeeded_once(finished)
    assert "signal 9" in worker.log()  # the worker noticed (WorkerLostError)


def test_no_run_is_lost_when_redis_restarts(
    own_redis: RedisServer, start_worker: StartWorker, project: Project, editor: User
) -> None:
    start_worker(own_redis.url)
    clip = upload(project, editor)
    running = wait_pausing(slow_run(clip, editor, pause_s=4))
    waiting = run_start(clip=clip, user=editor, stages=DEFAULT_STAGES, parameters={})
    queue = redis.Redis.from_url(own_redis.url)
    assert queue.llen("celery") == 1  # its message waits in Redis behind the running one
    queue.close()

    own_redis.stop()  # no persistence: the waiting message and the running one's are gone
    during = run_start(clip=clip, user=editor, stages=DEFAULT_STAGES, parameters={})
    assert Run.objects.get(pk=during.pk).status == Status.QUEUED  # the upload itself succeeded
    own_redis.start()

    first = clip.runs.order_by("pk").first()
    assert first is not None
    for run in wait_finished(first, running, waiting, during):
        assert_succeeded_once(run)
