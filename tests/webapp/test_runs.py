"""Runs without a worker: claims, the state machine, heartbeats, retries, failures, sweeps.

The pipeline is executed in-process (``pipeline.execute``); broker messages are
replaced by a recorder (``sent``), so nothing here needs Redis. The real worker,
broker and PostgreSQL are exercised in ``tests/webapp/integration``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.conf import LazySettings
from django.contrib.auth.models import AbstractUser, User
from django.utils import timezone
from kombu.exceptions import OperationalError

from motioncore import bvh
from webapp.clips import stages
from webapp.clips.models import Artifact, ArtifactKind, Clip
from webapp.clips.services import artifact_save, clip_upload_create
from webapp.projects.models import Project
from webapp.runs import pipeline, registry, services, tasks
from webapp.runs.models import Run, Status
from webapp.runs.stages import Context, Progress, StageFunction

ALL_KINDS = {kind.value for kind in ArtifactKind}
"""What a pipeline run (``ingest``, ``clean``, ``analyze``) stores; transitions and PFNN
walks store their own kinds."""
TEST_KIND = "test_runs"
"""The kind of run of the test-only stages registered here."""


@pytest.fixture(autouse=True)
def _no_background_heartbeats(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs executed here are short; a heartbeat thread writing from its own connection
    would only wait on the test's uncommitted transaction (it has its own test below)."""
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Run ids whose task message would have been sent."""
    ids: list[int] = []

    def delay(run_id: int) -> None:
        ids.append(run_id)

    monkeypatch.setattr(tasks.run_pipeline, "delay", delay)
    return ids


@pytest.fixture
def editor(members: dict[str, AbstractUser]) -> User:
    user = members["editor"]
    assert isinstance(user, User)
    return user


@pytest.fixture
def clip(project: Project, editor: User, sample_bvh: bytes, sent: list[int]) -> Clip:
    return clip_upload_create(project=project, user=editor, name="walk.bvh", data=sample_bvh).clip


@pytest.fixture
def run(clip: Clip) -> Run:
    """The clip's first run, as the upload queued it."""
    first = clip.runs.get()
    assert first.status == Status.QUEUED
    return first


@pytest.fixture
def extra_stage() -> Iterator[dict[str, StageFunction]]:
    """Register test-only stages (a kind of run of their own) for the duration of a test."""
    added: dict[str, StageFunction] = {}
    yield added
    registry.unregister(TEST_KIND)


def register(added: dict[str, StageFunction], name: str, fn: StageFunction) -> None:
    added[name] = fn
    registry.register(TEST_KIND, stages=added)


def age(run: Run, seconds: float, **fields: object) -> None:
    """Move the run's heartbeat (and enqueue time) ``seconds`` into the past."""
    past = timezone.now() - timedelta(seconds=seconds)
    Run.objects.filter(pk=run.pk).update(heartbeat_at=past, enqueued_at=past, **fields)


# --- claiming ------------------------------------------------------------------------------------


def test_claim_is_idempotent(run: Run) -> None:
    claimed = services.run_claim(run_id=run.pk, worker="w1")
    assert claimed is not None
    assert (claimed.status, claimed.worker, claimed.attempts) == (Status.RUNNING, "w1", 1)
    assert claimed.heartbeat_at is not None and claimed.started_at is not None
    assert services.run_claim(run_id=run.pk, worker="w1") is None  # redelivered message
    assert services.run_claim(run_id=run.pk, worker="w2") is None  # another worker
    assert Run.objects.get(pk=run.pk).attempts == 1


def test_finished_runs_are_never_claimed(run: Run) -> None:
    claimed = services.run_claim(run_id=run.pk, worker="w1")
    assert claimed is not None and services.run_succeed(run=claimed, timings={})
    age(run, 10_000)
    assert services.run_claim(run_id=run.pk, worker="w2") is None


def test_a_stale_run_is_taken_over(run: Run, settings: LazySettings) -> None:
    first = services.run_claim(run_id=run.pk, worker="w1")
    assert first is not None
    age(run, settings.RUN_STALE_AFTER_S - 2)
    assert services.run_claim(run_id=run.pk, worker="w2") is None  # still alive
    age(run, settings.RUN_STALE_AFTER_S + 1)
    second = services.run_claim(run_id=run.pk, worker="w2")
    assert second is not None and (second.worker, second.attempts) == ("w2", 2)
    # the presumed-dead worker can no longer write
    assert not services.run_progress(run=first, percent=50, stage="late")
    assert not services.run_heartbeat(run=first)
    assert not services.run_succeed(run=first, timings={})
    assert not services.run_fail(run=first, error="late", timings={})
    assert Run.objects.get(pk=run.pk).status == Status.RUNNING


def test_claims_are_capped_by_max_retries(run: Run, settings: LazySettings) -> None:
    settings.RUN_MAX_RETRIES = 1
    assert services.run_claim(run_id=run.pk, worker="w1") is not None
    age(run, settings.RUN_STALE_AFTER_S + 1)
    assert services.run_claim(run_id=run.pk, worker="w2") is not None
    age(run, settings.RUN_STALE_AFTER_S + 1)
    assert services.run_claim(run_id=run.pk, worker="w3") is None


# --- the state machine ---------------------------------------------------------------------------


def test_progress_doubles_as_heartbeat(run: Run) -> None:
    claimed = services.run_claim(run_id=run.pk, worker="w1")
    assert claimed is not None
    age(run, 60)
    assert services.run_progress(run=claimed, percent=140.4, stage="x" * 300)
    row = Run.objects.get(pk=run.pk)
    assert row.progress == 100 and len(row.stage) == 120
    assert row.heartbeat_at is not None
    assert timezone.now() - row.heartbeat_at < timedelta(seconds=5)


def test_release_requeues_and_fail_records(run: Run) -> None:
    claimed = services.run_claim(run_id=run.pk, worker="w1")
    assert claimed is not None and services.run_release(run=claimed)
    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.worker) == (Status.QUEUED, "")
    again = services.run_claim(run_id=run.pk, worker="w2")
    assert again is not None and again.attempts == 2
    assert services.run_fail(run=again, error="bad", timings={"ingest": 0.1})
    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.error, row.timings) == (Status.FAILED, "bad", {"ingest": 0.1})
    assert row.finished_at is not None


def test_execute_runs_every_stage_once(run: Run) -> None:
    pipeline.execute(run_id=run.pk)
    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.progress, row.stage, row.error) == (Status.SUCCEEDED, 100, "Done", "")
    assert set(row.timings) == {"ingest", "clean", "analyze"}
    assert set(row.artifacts.values_list("kind", flat=True)) == ALL_KINDS
    cleaned = row.artifacts.get(kind=ArtifactKind.CLEANED_BVH)
    with cleaned.file.open("rb") as handle:
        assert bvh.load(handle.read()).num_frames == run.clip.frames
    pipeline.execute(run_id=run.pk)  # a duplicate message: nothing happens
    assert Run.objects.get(pk=run.pk).attempts == 1


def test_a_taken_over_run_replaces_its_artifacts(run: Run, settings: LazySettings) -> None:
    claimed = services.run_claim(run_id=run.pk, worker="dead-worker")
    assert claimed is not None
    context = Context(run=claimed)
    stages.ingest(context, lambda fraction, message: None)  # the dead worker got this far
    old_file = Artifact.objects.get(run=run).file.name
    age(run, settings.RUN_STALE_AFTER_S + 1)
    pipeline.execute(run_id=run.pk)
    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.attempts) == (Status.SUCCEEDED, 2)
    assert sorted(row.artifacts.values_list("kind", flat=True)) == sorted(ALL_KINDS)
    assert row.artifacts.get(kind=ArtifactKind.CANONICAL).file.name != old_file


def test_a_worker_that_lost_its_run_stops_writing(
    run: Run, settings: LazySettings, extra_stage: dict[str, StageFunction]
) -> None:
    def taken_over(context: Context, progress: Progress) -> None:
        age(context.run, settings.RUN_STALE_AFTER_S + 1)
        assert services.run_claim(run_id=context.run.pk, worker="w2") is not None
        progress(0.5, "still working")  # raises LostOwnership

    register(extra_stage, "taken_over", taken_over)
    Run.objects.filter(pk=run.pk).update(stages=["taken_over", "ingest"])
    pipeline.execute(run_id=run.pk)
    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.worker, row.attempts) == (Status.RUNNING, "w2", 2)
    assert not row.artifacts.exists()


def test_artifacts_need_ownership(run: Run, settings: LazySettings) -> None:
    claimed = services.run_claim(run_id=run.pk, worker="w1")
    assert claimed is not None
    age(run, settings.RUN_STALE_AFTER_S + 1)
    assert services.run_claim(run_id=run.pk, worker="w2") is not None
    with pytest.raises(services.LostOwnership):
        artifact_save(run=claimed, kind=ArtifactKind.CANONICAL, filename="x.npz", data=b"late")
    assert not Artifact.objects.filter(run=run).exists()


# --- failures: permanent and transient -----------------------------------------------------------


def test_bad_input_is_a_recorded_permanent_failure(run: Run) -> None:
    with open(run.clip.original.path, "wb") as handle:  # truncated on disk since the upload
        handle.write(b"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n")
    pipeline.execute(run_id=run.pk)
    row = Run.objects.get(pk=run.pk)
    assert row.status == Status.FAILED
    assert (
        row.error == "line 5, column 1: The MOTION section is missing (the file may be truncated)."
    )
    assert row.attempts == 1 and row.finished_at is not None


def test_unknown_stage_fails_before_running_anything(run: Run) -> None:
    Run.objects.filter(pk=run.pk).update(stages=["ingest", "no-such-stage"])
    pipeline.execute(run_id=run.pk)
    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.error) == (Status.FAILED, "Unknown pipeline stage 'no-such-stage'.")
    assert not row.artifacts.exists()


def test_a_bug_is_recorded_not_retried(run: Run, extra_stage: dict[str, StageFunction]) -> None:
    def buggy(context: Context, progress: Progress) -> None:
        raise KeyError("oops")

    register(extra_stage, "buggy", buggy)
    Run.objects.filter(pk=run.pk).update(stages=["buggy"])
    pipeline.execute(run_id=run.pk)
    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.error) == (Status.FAILED, "An internal error stopped this run.")


def test_transient_errors_are_retried_then_fail(
    run: Run, settings: LazySettings, extra_stage: dict[str, StageFunction]
) -> None:
    def flaky(context: Context, progress: Progress) -> None:
        raise OSError("storage unavailable")

    register(extra_stage, "flaky", flaky)
    Run.objects.filter(pk=run.pk).update(stages=["flaky"])
    settings.RUN_MAX_RETRIES = 2
    for attempt in (1, 2):
        with pytest.raises(pipeline.TransientError):
            pipeline.execute(run_id=run.pk)
        row = Run.objects.get(pk=run.pk)
        assert (row.status, row.attempts, row.worker) == (Status.QUEUED, attempt, "")
    pipeline.execute(run_id=run.pk)  # the last attempt: recorded, not raised
    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.attempts) == (Status.FAILED, 3)
    assert row.error == "A storage or database error kept failing."


def test_a_transient_error_then_success(run: Run, extra_stage: dict[str, StageFunction]) -> None:
    calls: list[int] = []

    def flaky_once(context: Context, progress: Progress) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("storage unavailable")

    register(extra_stage, "flaky_once", flaky_once)
    Run.objects.filter(pk=run.pk).update(stages=["flaky_once", "ingest", "clean", "analyze"])
    with pytest.raises(pipeline.TransientError):
        pipeline.execute(run_id=run.pk)
    pipeline.execute(run_id=run.pk)
    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.attempts) == (Status.SUCCEEDED, 2)
    assert row.artifacts.count() == len(ALL_KINDS)


def test_the_task_retries_only_transient_errors(settings: LazySettings) -> None:
    task = tasks.run_pipeline
    assert task.autoretry_for == (pipeline.TransientError,)
    assert task.max_retries == settings.RUN_MAX_RETRIES
    assert task.acks_late and task.reject_on_worker_lost


# --- heartbeat thread ----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_heartbeat_thread_beats_and_notices_a_takeover(run: Run) -> None:
    claimed = services.run_claim(run_id=run.pk, worker="w1")
    assert claimed is not None
    age(run, 60)
    with pipeline.Heartbeat(claimed, interval_s=0.05) as beat:
        time.sleep(0.4)
        fresh = Run.objects.get(pk=run.pk).heartbeat_at
        assert fresh is not None and timezone.now() - fresh < timedelta(seconds=5)
        Run.objects.filter(pk=run.pk).update(worker="w2")
        time.sleep(0.4)
    assert beat.lost


def test_heartbeat_interval_is_a_few_seconds(
    settings: LazySettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.undo()  # the real interval
    settings.RUN_STALE_AFTER_S = 120
    assert services.heartbeat_interval_s() == 5.0
    settings.RUN_STALE_AFTER_S = 6
    assert services.heartbeat_interval_s() == 1.5
    assert services.sweep_interval_s() == 3.0


# --- sweeping for stale runs ---------------------------------------------------------------------


def test_requeue_picks_dead_and_lost_runs_once(
    clip: Clip, editor: User, settings: LazySettings, sent: list[int]
) -> None:
    stale = settings.RUN_STALE_AFTER_S + 1
    dead = clip.runs.get()
    assert services.run_claim(run_id=dead.pk, worker="w1") is not None
    age(dead, stale)
    alive = services.run_start(clip=clip, user=editor, stages=["ingest"], parameters={})
    assert services.run_claim(run_id=alive.pk, worker="w2") is not None
    lost = services.run_start(clip=clip, user=editor, stages=["ingest"], parameters={})
    age(lost, stale)
    waiting = services.run_start(clip=clip, user=editor, stages=["ingest"], parameters={})
    done = services.run_start(clip=clip, user=editor, stages=["ingest"], parameters={})
    Run.objects.filter(pk=done.pk).update(status=Status.SUCCEEDED)
    age(done, stale)
    sent.clear()

    assert sorted(services.runs_requeue_stale()) == sorted([dead.pk, lost.pk])
    assert sorted(sent) == sorted([dead.pk, lost.pk])
    assert services.runs_requeue_stale() == []  # sent once per period, however many sweepers
    assert Run.objects.get(pk=waiting.pk).status == Status.QUEUED
    age(lost, stale)
    assert services.runs_requeue_stale() == [lost.pk]  # still lost a period later: sent again


def test_requeue_fails_runs_out_of_attempts(run: Run, settings: LazySettings) -> None:
    settings.RUN_MAX_RETRIES = 0
    assert services.run_claim(run_id=run.pk, worker="w1") is not None
    age(run, settings.RUN_STALE_AFTER_S + 1)
    assert services.runs_requeue_stale() == []
    row = Run.objects.get(pk=run.pk)
    assert row.status == Status.FAILED
    assert row.error.startswith("The run was interrupted 1 times")


def test_a_broker_outage_leaves_the_run_queued(
    run: Run, settings: LazySettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broker_down(run_id: int) -> None:
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.run_pipeline, "delay", broker_down)
    assert not services.enqueue(run.pk)
    age(run, settings.RUN_STALE_AFTER_S + 1)
    assert services.runs_requeue_stale() == []  # not sent; the next sweep tries again
    assert Run.objects.get(pk=run.pk).status == Status.QUEUED


def test_sweeper_thread_sweeps_and_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[float] = []
    monkeypatch.setattr(services, "runs_requeue_stale", lambda: calls.append(time.monotonic()))
    sweeper = tasks.Sweeper(interval_s=0.05)
    sweeper.start()
    time.sleep(0.3)
    sweeper.stop()
    count = len(calls)
    assert count >= 3  # once at start, then periodically
    time.sleep(0.15)
    assert len(calls) == count
