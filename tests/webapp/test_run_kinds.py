"""Kinds of run: the registry, a toy kind run by the real engine, open artifact kinds and
the ``run_finished`` signal's observers.

The toy kind is the app ``support.toykind`` (``tests/support/toykind``, installed by
``webapp/settings_test.py`` under pytest): it registers its stage, its artifact kind and
its result recorder at ``ready()`` like the real apps, and nothing in ``webapp/runs``
names it.
"""

from __future__ import annotations

import ast
import hashlib
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import AbstractUser, User
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.core.management import call_command
from pytest_django import DjangoCaptureOnCommitCallbacks

from support.paths import REPO_ROOT
from support.toykind.models import ToyResult
from webapp.clips.models import Artifact, Clip
from webapp.clips.services import artifact_save
from webapp.runs import pipeline, registry, services
from webapp.runs.models import Run, Status
from webapp.runs.signals import run_finished
from webapp.runs.stages import Context, Progress

STORED_KINDS = {
    "canonical",
    "cleaned_bvh",
    "clean_report",
    "viewer",
    "viewer_raw",
    "analysis",
    "analysis_features",
    "transition_bvh",
    "transition_viewer",
    "transition_viewer_end",
    "transition_viewer_fixed70",
    "transition_viewer_threshold",
    "transition_report",
    "pfnn_bvh",
    "pfnn_canonical_bvh",
    "pfnn_viewer",
    "pfnn_report",
}
"""Every ``Artifact.kind`` value stored before kinds were opened (clips migration 0007)."""
ADDED_KINDS = {
    "viewer_full",  # issue 16: long clips' full-rate positions (float32)
    "viewer_raw_full",
    "score_animation_bvh",  # issue 16: the score animation became a run
    "score_animation_viewer",
    "score_footprints",
    *(  # issue 17: MotorNerve drives and trainings
        f"motornerve_{k}"
        for k in ("bvh", "canonical_bvh", "viewer", "report", "weights", "training_log")
    ),
    "motornerve_web_weights",
    "motornerve_web_manifest",
    "transition_bridge_bvh",  # issue 18: a bridge A → C → B when the direct join misses
    "transition_bridge_viewer",
    "sequence_bvh",  # issue 18: sequences of clips
    "sequence_viewer",
    "sequence_report",
}
"""Kinds added since, by the apps that own them."""
KIND_APPS = (
    "api",
    "clips",
    "laban",
    "motornerve",
    "pfnn",
    "reviews",
    "sequences",
    "transitions",
    "webhooks",
)
"""Apps that define kinds of run or observe them: the run engine imports none of them."""


@pytest.fixture
def editor(members: dict[str, AbstractUser]) -> User:
    user = members["editor"]
    assert isinstance(user, User)
    return user


@pytest.fixture
def claimed(clip: Clip) -> Run:
    """The clip's first run, claimed by worker ``w1``."""
    run = services.run_claim(run_id=clip.runs.get().pk, worker="w1")
    assert run is not None
    return run


@pytest.fixture
def scratch_kind() -> Iterator[str]:
    """A kind name free for the test, unregistered afterwards."""
    yield "scratch"
    registry.unregister("scratch")


def noop(context: Context, progress: Progress) -> None:
    """A stage that does nothing."""


# --- a new kind of run ----------------------------------------------------------------------------


def test_a_new_kind_runs_on_the_real_engine(
    clip: Clip,
    editor: User,
    recorded_runs: list[int],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    updates: list[tuple[float, str]] = []
    real_progress = services.run_progress

    def progress_spy(*, run: Run, percent: float, stage: str) -> bool:
        updates.append((percent, stage))
        return real_progress(run=run, percent=percent, stage=stage)

    monkeypatch.setattr(services, "run_progress", progress_spy)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.run_start(
            clip=clip, user=editor, stages=["toy"], parameters={"word": "kinetograph"}
        )
    assert recorded_runs == [run.pk]  # enqueued on commit, like any run

    pipeline.execute(run_id=run.pk)

    row = Run.objects.get(pk=run.pk)
    assert (row.status, row.progress, row.stage, row.error) == (Status.SUCCEEDED, 100, "Done", "")
    assert list(row.timings) == ["toy"]
    assert updates == [(25.0, "Writing the toy note"), (75.0, "Recording the toy result")]
    (note,) = row.artifacts.all()
    expected = b"kinetograph run_forward.bvh"
    assert (note.kind, note.kind_label, note.clip_id) == ("toy_note", "Toy note (text)", clip.pk)
    assert (note.size_bytes, note.sha256) == (len(expected), hashlib.sha256(expected).hexdigest())
    with note.file.open("rb") as handle:
        assert handle.read() == expected
    assert ToyResult.objects.get(run=row).result == {"word": "kinetograph", "letters": 11}


def test_a_new_kind_needs_no_migration(db: None) -> None:
    """``toy_note`` is stored in ``Artifact.kind`` without a migration of webapp/clips."""
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)  # exits 1 on changes


def test_the_run_engine_imports_no_kind_of_run() -> None:
    """Not even inside a function or under ``TYPE_CHECKING``: the kinds register themselves."""
    found = []
    for path in sorted((REPO_ROOT / "webapp" / "runs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            bad = [n for n in names if n.split(".")[:2] in (["webapp", a] for a in KIND_APPS)]
            found += [f"{Path(path).relative_to(REPO_ROOT)}:{node.lineno} {n}" for n in bad]
    assert found == []


# --- the registry ---------------------------------------------------------------------------------


def test_each_app_registers_its_kind() -> None:
    registered = {kind.name: set(kind.stages) for kind in registry.kinds()}
    expected = {
        "clips": {"ingest", "clean", "analyze"},
        "transitions": {"transition"},
        "sequences": {"sequence"},
        "pfnn": {"pfnn"},
        "motornerve": {"motornerve_drive", "motornerve_train"},
        "toykind": {"toy"},
    }
    assert {name: registered.get(name) for name in expected} == expected
    assert registry.kind_get("transitions").record_result is not None  # type: ignore[union-attr]
    assert registry.kind_get("clips").record_result is None  # type: ignore[union-attr]


def test_stored_artifact_kinds_are_unchanged() -> None:
    kinds = registry.artifact_kinds()
    assert set(kinds) - {"toy_note"} == STORED_KINDS | ADDED_KINDS
    assert kinds["cleaned_bvh"] == "Cleaned BVH"
    assert kinds["transition_viewer_threshold"] == "Speed-threshold cut viewer arrays (JSON)"
    assert registry.artifact_kind_label("pfnn_report") == "PFNN walk measures (JSON)"


def test_an_unregistered_artifact_kind_is_refused(claimed: Run, media_root: Path) -> None:
    before = sorted(media_root.rglob("*"))
    with pytest.raises(registry.UnknownArtifactKind, match="No app registered the artifact kind"):
        artifact_save(run=claimed, kind="nobody_registered", filename="x.bin", data=b"x")
    assert not Artifact.objects.filter(run=claimed).exists()
    assert sorted(media_root.rglob("*")) == before  # nothing stored
    unsaved = Artifact(clip=claimed.clip, run=claimed, kind="nobody_registered")
    with pytest.raises(ValidationError) as refused:
        unsaved.clean()
    assert "nobody_registered" in str(refused.value.message_dict["kind"])


def test_a_stage_or_artifact_kind_belongs_to_one_kind(scratch_kind: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="'ingest', which run kind 'clips' has"):
        registry.register(scratch_kind, stages={"ingest": noop})
    with pytest.raises(ImproperlyConfigured, match="'viewer', which run kind 'clips' has"):
        registry.register(scratch_kind, stages={"mine": noop}, artifact_kinds={"viewer": "V"})
    with pytest.raises(ImproperlyConfigured, match="1 to 64 characters"):
        registry.register(scratch_kind, stages={"mine": noop}, artifact_kinds={"k" * 65: "K"})
    assert registry.kind_get(scratch_kind) is None  # refused registrations leave nothing


def test_registering_a_kind_again_replaces_it(scratch_kind: str) -> None:
    registry.register(scratch_kind, stages={"first": noop}, artifact_kinds={"scratch_a": "A"})
    registry.register(scratch_kind, stages={"second": noop})
    assert registry.kind_of_stage("first") is None
    assert registry.step("second").function is noop
    with pytest.raises(registry.UnknownArtifactKind):
        registry.artifact_kind_check("scratch_a")
    with pytest.raises(registry.UnknownStage, match=r"^Unknown pipeline stage 'first'\.$"):
        registry.step("first")


# --- observers of finished runs -------------------------------------------------------------------


def test_a_failing_observer_neither_stops_the_others_nor_undoes_the_run(
    claimed: Run,
    caplog: pytest.LogCaptureFixture,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    heard: list[tuple[int, str]] = []

    def broken(sender: object, **kwargs: object) -> None:
        raise RuntimeError("observer down")

    def listening(sender: object, *, run_id: int, status: str, **kwargs: object) -> None:
        heard.append((run_id, status))

    run_finished.connect(broken, dispatch_uid="test.broken")
    run_finished.connect(listening, dispatch_uid="test.listening")
    try:
        with django_capture_on_commit_callbacks() as callbacks:
            assert services.run_succeed(run=claimed, timings={})
        assert heard == []  # not before the run's transaction commits
        with caplog.at_level(logging.WARNING, logger="webapp.runs.signals"):
            for callback in callbacks:
                callback()
    finally:
        run_finished.disconnect(dispatch_uid="test.broken")
        run_finished.disconnect(dispatch_uid="test.listening")
    assert heard == [(claimed.pk, "succeeded")]
    assert Run.objects.get(pk=claimed.pk).status == Status.SUCCEEDED
    (warning,) = [r for r in caplog.records if r.name == "webapp.runs.signals"]
    assert f"run {claimed.pk} finished, but its observer" in warning.getMessage()
    assert "observer down" in warning.getMessage()


def test_failed_and_exhausted_runs_are_announced(
    clip: Clip,
    editor: User,
    claimed: Run,
    recorded_runs: list[int],
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    heard: list[tuple[int, str]] = []

    def listening(sender: object, *, run_id: int, status: str, **kwargs: object) -> None:
        heard.append((run_id, status))

    run_finished.connect(listening, dispatch_uid="test.listening")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            services.run_fail(run=claimed, error="Bad file.", timings={})
            lost = services.run_start(clip=clip, user=editor, stages=["ingest"], parameters={})
            Run.objects.filter(pk=lost.pk).update(
                status=Status.RUNNING, attempts=services.max_attempts(), heartbeat_at=None
            )
            services.runs_requeue_stale()
    finally:
        run_finished.disconnect(dispatch_uid="test.listening")
    assert heard == [(claimed.pk, "failed"), (lost.pk, "failed")]
