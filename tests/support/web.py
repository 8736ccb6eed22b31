"""Web-layer test helpers: users, API clients, finished runs, transitions, walks and
proposals as a worker would leave them, the real pipeline run in-process, and a
registered stage swapped for a test's own."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser, User
from django.core.files.base import ContentFile
from django.utils.timezone import now
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from motioncore import analysis, bvh
from support.paths import SAMPLE_DIR
from webapp.clips.models import Artifact, ArtifactKind, Clip
from webapp.clips.services import clip_upload_create
from webapp.laban.models import Score
from webapp.laban.services import score_upload_create
from webapp.motornerve.models import Drive, Training
from webapp.motornerve.selectors import DRIVE_DOWNLOADS, TRAINING_DOWNLOADS
from webapp.pfnn.models import Generation
from webapp.pfnn.selectors import GENERATION_DOWNLOADS
from webapp.projects.models import Project, Role
from webapp.reviews.models import Proposal
from webapp.reviews.services import proposal_create_from_transition
from webapp.runs import pipeline, registry
from webapp.runs.models import Run, Status
from webapp.runs.stages import StageFunction
from webapp.sequences.models import Sequence
from webapp.sequences.selectors import SEQUENCE_DOWNLOADS
from webapp.transitions.models import Transition
from webapp.transitions.selectors import TRANSITION_DOWNLOADS

SAMPLES = SAMPLE_DIR


ROLES = (Role.OWNER, Role.EDITOR, Role.REVIEWER, Role.VIEWER)


def make_user(username: str) -> AbstractUser:
    user: AbstractUser = get_user_model().objects.create_user(
        username=username, password="pw-" + username
    )
    return user


def client_for(user: AbstractUser | None) -> APIClient:
    """An API client authenticated with the user's token (anonymous for ``None``)."""
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def stored_files(root: Path) -> list[Path]:
    """Every file under ``root``."""
    return sorted(p for p in root.rglob("*") if p.is_file())


@cache
def small_bvh() -> bytes:
    """A real BVH of three frames (walk60's rig): what a BVH artifact holds in these
    tests, so that the GLB made from it has a mannequin to show."""
    clip = bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh")
    short = type(clip)(clip.skeleton, clip.rotations[:3], clip.translations[:3], clip.fps)
    return bvh.dump(short).encode()


ARTIFACT_BYTES = {
    ArtifactKind.CLEANED_BVH: small_bvh(),
    ArtifactKind.CLEAN_REPORT: b'{"cleaned": true}',
    ArtifactKind.VIEWER: b'{"format": "kinetograph-viewer/1"}',
    ArtifactKind.VIEWER_RAW: b'{"format": "kinetograph-viewer/1", "raw": true}',
    ArtifactKind.VIEWER_FULL: b"\x00\x00\x80\x3f" * 6,
    ArtifactKind.VIEWER_RAW_FULL: b"\x00\x00\x00\x40" * 6,
    ArtifactKind.ANALYSIS: b'{"units": []}',
}


def finish_run(clip: Clip, *, status: str = "succeeded", marker: bytes = b"") -> Run:
    """A finished run of ``clip`` with an artifact of every downloadable kind (the bytes of
    :data:`ARTIFACT_BYTES` followed by ``marker``), as a worker would leave it."""
    run = Run.objects.create(
        clip=clip, stages=["ingest", "clean"], status=status, progress=100, finished_at=now()
    )
    for kind, data in ARTIFACT_BYTES.items():
        artifact = Artifact(
            clip=clip,
            run=run,
            kind=kind,
            sha256=hashlib.sha256(data + marker).hexdigest(),
            size_bytes=len(data + marker),
        )
        artifact.file.save(f"run{run.pk}-{kind}", ContentFile(data + marker), save=True)
    return run


@cache
def _features_of(data: bytes) -> bytes:
    return analysis.features(bvh.load(data)).to_npz()


def attach_features(run: Run) -> Artifact:
    """The run's clip's real analysis features (what the ``analyze`` stage stores), as an
    artifact of ``run``, so that ``GET clips/{id}/analysis/`` can answer."""
    with run.clip.original.open("rb") as handle:
        data = _features_of(handle.read())
    artifact = Artifact(
        clip=run.clip,
        run=run,
        kind=ArtifactKind.ANALYSIS_FEATURES,
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
    )
    artifact.file.save(f"run{run.pk}-features.npz", ContentFile(data), save=True)
    return artifact


def _succeeded_run_with_files(clip: Clip, stages: list[str], kinds: Any) -> Run:
    """A succeeded run of ``stages`` on ``clip`` with a small file of each artifact kind."""
    run = Run.objects.create(
        clip=clip, stages=stages, status="succeeded", progress=100, finished_at=now()
    )
    for kind in dict.fromkeys(kinds):  # a .glb download names its BVH's kind again
        data = small_bvh() if str(kind).endswith("bvh") else b"{}"
        artifact = Artifact(
            clip=clip,
            run=run,
            kind=kind,
            sha256=hashlib.sha256(data).hexdigest(),
            size_bytes=len(data),
        )
        artifact.file.save(f"run{run.pk}-{kind}", ContentFile(data), save=True)
    return run


def finish_transition(clip_a: Clip, clip_b: Clip) -> Transition:
    """A succeeded transition from ``clip_a`` into ``clip_b`` with a small file of every
    downloadable kind, as a worker would leave it."""
    run = _succeeded_run_with_files(clip_a, ["transition"], TRANSITION_DOWNLOADS.values())
    return Transition.objects.create(
        project=clip_a.project, clip_a=clip_a, clip_b=clip_b, run=run, result={"metrics": {}}
    )


def finish_sequence(clips: list[Clip]) -> Sequence:
    """A succeeded sequence of ``clips`` with a small file of every downloadable kind, as a
    worker would leave it."""
    run = _succeeded_run_with_files(clips[0], ["sequence"], SEQUENCE_DOWNLOADS.values())
    ids = [clip.pk for clip in clips]
    return Sequence.objects.create(
        project=clips[0].project, clips=ids, edits=[None] * (len(ids) - 1), run=run, result={}
    )


def finish_generation(clip: Clip) -> Generation:
    """A succeeded PFNN walk on ``clip`` with a small file of every downloadable kind, as
    a worker would leave it."""
    run = _succeeded_run_with_files(clip, ["pfnn"], GENERATION_DOWNLOADS.values())
    parameters = {"path": [[0.0, 0.0], [0.0, 3.0]], "speed_mps": 1.2, "seconds": None}
    return Generation.objects.create(
        project=clip.project, clip=clip, run=run, parameters=parameters, result={"frames": 150}
    )


def finish_training(clip: Clip) -> Training:
    """A succeeded MotorNerve training whose run belongs to ``clip`` (the first of its
    set), with a small file of every downloadable kind."""
    run = _succeeded_run_with_files(clip, ["motornerve_train"], TRAINING_DOWNLOADS.values())
    parameters = {"clips": [clip.pk], "interact": [], "epochs": 1}
    return Training.objects.create(
        project=clip.project, name="weights", run=run, parameters=parameters, result={"epochs": 1}
    )


def finish_drive(clip: Clip) -> Drive:
    """A succeeded MotorNerve drive on ``clip`` with a small file of every downloadable
    kind."""
    run = _succeeded_run_with_files(clip, ["motornerve_drive"], DRIVE_DOWNLOADS.values())
    parameters = {"timeline": {"duration_s": 2.0, "keys": [{"t": 0.0}]}, "training": None}
    return Drive.objects.create(
        project=clip.project, clip=clip, run=run, parameters=parameters, result={"frames": 121}
    )


def processed(project: Project, user: AbstractUser, path: Path) -> Clip:
    """``path`` uploaded to ``project`` by ``user`` and run through the real pipeline
    in-process (what a worker does); the run must succeed."""
    assert isinstance(user, User)
    clip = clip_upload_create(
        project=project, user=user, name=path.name, data=path.read_bytes()
    ).clip
    run = clip.runs.get()
    pipeline.execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Status.SUCCEEDED, run.error
    return clip


@contextmanager
def stage_replaced(name: str, function: StageFunction) -> Iterator[StageFunction]:
    """Within the block, the registered stage ``name`` is ``function`` (its kind keeps its
    other stages, artifact kinds and result recorder); yields the original stage."""
    kind = registry.kind_of_stage(name)
    assert kind is not None, f"no app registered the stage {name!r}"
    registry.register(
        kind.name,
        stages={**kind.stages, name: function},
        artifact_kinds=kind.artifact_kinds,
        record_result=kind.record_result,
    )
    try:
        yield kind.stages[name]
    finally:
        registry.register(
            kind.name,
            stages=kind.stages,
            artifact_kinds=kind.artifact_kinds,
            record_result=kind.record_result,
        )


def _report_metrics(cut: int, entry: int, retention: float) -> dict[str, Any]:
    return {
        "velocity_continuity": 0.081,
        "momentum_retention": retention,
        "energy_loss": 0.45,
        "foot_slide_mps": None,
        "pose_discontinuity_m": 0.151,
        "max_joint_acceleration_m_per_s2": 120.0,
        "cut_frame": cut,
        "entry_frame": entry,
    }


def _report_method(method: str, cut: int, entry: int, frames: int) -> dict[str, Any]:
    return {
        "cut": {"frame": cut, "time_s": cut / 60, "method": method, "reason": "", "breakdown": {}},
        "entry": {"frame": entry, "time_s": entry / 60, "cost": {"total": 1.0}},
        "layout": {"method": "crossfade", "frames": frames, "cut_frame": cut, "entry_frame": entry},
        "recommendation": None,
    }


def transition_report(*, cut: int = 30, entry: int = 5, frames: int = 50) -> dict[str, Any]:
    """A transition report of the shape the ``transition`` stage stores (MTP at ``cut`` /
    ``entry`` with a transition clip of ``frames``, and the end-of-clip baseline), small
    enough for a 45-frame clip into itself."""
    return {
        "cut": {"frame": cut},
        "entry": {"frame": entry},
        "blend_s": 0.12,
        "blend": "crossfade",
        "alpha": 0.6,
        "theta_max_deg": 75.0,
        "curve": "speed",
        "metrics": {
            "mtp": _report_metrics(cut, entry, 0.696),
            "end": _report_metrics(44, 0, 0.416),
        },
        "methods": {
            "mtp": _report_method("mtp", cut, entry, frames),
            "end": _report_method("end", 44, 0, frames + 14),
        },
        "engine": {"unity": {"exit_time": 0.68}, "unreal": {"blend_duration_s": 0.12}},
        "sources": {"a": "cleaned", "b": "cleaned"},
    }


def finish_proposal(transition: Transition, author: AbstractUser, **kwargs: Any) -> Proposal:
    """A proposal of ``transition`` (given :func:`transition_report` as its result if it
    has no methods yet) made by ``author`` through the service."""
    if not transition.result.get("methods"):
        transition.result = transition_report()
        transition.save(update_fields=["result"])
    assert isinstance(author, User)
    return proposal_create_from_transition(
        user=author, project_id=transition.project_id, transition_id=transition.pk, **kwargs
    )


def animated_score(*, project: Project, user: Any, name: str, data: bytes) -> Score:
    """``score_upload_create``, then its clip's first run (the animation) as a worker runs
    it; the score as it is then."""
    score = score_upload_create(project=project, user=user, name=name, data=data)
    run = score.clip.runs.order_by("pk").first()
    if run is not None and run.status == Status.QUEUED:
        pipeline.execute(run_id=run.pk)
    return Score.objects.select_related("project", "clip", "created_by").get(pk=score.pk)


@cache
def character_glb() -> bytes:
    """The suite's own character: the canonical skeleton's mannequin as a GLB (a skinned
    humanoid made here, no third-party file)."""
    from motioncore.character.glb import rest_glb_bytes
    from motioncore.character.mannequin import mannequin
    from motioncore.skeleton import canonical

    skeleton = canonical.skeleton()
    return rest_glb_bytes(skeleton, mannequin(skeleton))


def finish_character(project: Project, user: Any) -> Any:
    """:func:`character_glb` uploaded to ``project`` by ``user`` (an editor)."""
    from webapp.characters.services import character_create

    return character_create(project=project, user=user, name="hero.glb", data=character_glb())
