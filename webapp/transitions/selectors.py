"""Transition reads, scoped to the user's memberships (404 for anything of a project
the user is not a member of). Downloads come from the transition's own run."""

from __future__ import annotations

from pathlib import PurePosixPath

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from webapp.clips.models import Clip
from webapp.clips.selectors import clip_list, run_download_get, run_downloads_ready
from webapp.core.downloads import Download
from webapp.core.errors import NotFound
from webapp.core.tables import Column
from webapp.projects.selectors import project_get, project_list
from webapp.transitions.models import Transition, TransitionArtifactKind

TRANSITION_DOWNLOADS: dict[str, TransitionArtifactKind] = {
    "transition.bvh": TransitionArtifactKind.BVH,
    "transition.glb": TransitionArtifactKind.BVH,
    "transition.json": TransitionArtifactKind.REPORT,
    "viewer.json": TransitionArtifactKind.VIEWER,  # the MTP cut
    "viewer-end.json": TransitionArtifactKind.VIEWER_END,
    "viewer-fixed70.json": TransitionArtifactKind.VIEWER_FIXED70,
    "viewer-threshold.json": TransitionArtifactKind.VIEWER_THRESHOLD,
    "bridge.bvh": TransitionArtifactKind.BRIDGE_BVH,
    "viewer-bridge.json": TransitionArtifactKind.BRIDGE_VIEWER,
}
"""Download name → artifact kind of the transition's run."""

VIEWER_DOWNLOADS: dict[str, str] = {
    "mtp": "viewer.json",
    "end": "viewer-end.json",
    "fixed70": "viewer-fixed70.json",
    "threshold": "viewer-threshold.json",
}
"""Cut method → the download holding its transition clip's viewer arrays."""

BRIDGE_LIBRARY_MAX = 40
"""Most clips a transition's run searches for a bridge (the newest; each is loaded)."""

METRIC_COLUMNS: tuple[Column, ...] = (
    Column("velocity_continuity", "Continuity", "", 3, True),
    Column("momentum_retention", "Retention", "", 3, False),
    Column("energy_loss", "Energy loss", "", 3, True),
    Column("foot_slide_mps", "Foot slide", "m/s", 3, True),
    Column("pose_discontinuity_m", "Pose jump", "m", 3, True),
    Column("max_joint_acceleration_m_per_s2", "Peak accel.", "m/s²", 0, True),
)
"""The report's metrics as table columns, per cut method (seed 000 §6.1 and the
transition's own checks); the review pages show a proposal's snapshot of them."""


def _related(transitions: QuerySet[Transition]) -> QuerySet[Transition]:
    """With their run, clips, author and the run's artifacts (no query per row)."""
    return transitions.select_related("run", "clip_a", "clip_b", "created_by").prefetch_related(
        "run__artifacts"
    )


def transition_list(*, user: User | AnonymousUser, project_id: int) -> QuerySet[Transition]:
    """The project's transitions, newest first; 404 for non-members."""
    project = project_get(user=user, project_id=project_id)
    return _related(Transition.objects.filter(project=project))


def transition_get(*, user: User | AnonymousUser, transition_id: int) -> Transition:
    """The transition if the user is a member of its project, else 404."""
    found = _related(
        Transition.objects.filter(pk=transition_id, project__in=project_list(user=user))
    ).first()
    if found is None:
        raise NotFound("No such transition.")
    return found


def transition_downloads_ready(transition: Transition) -> dict[str, bool]:
    """Download name → whether it can be downloaded now (the run succeeded and made it)."""
    return run_downloads_ready(transition.run, TRANSITION_DOWNLOADS)


def transition_download_get(
    *, user: User | AnonymousUser, transition_id: int, name: str
) -> Download:
    """The file behind ``GET transitions/{id}/download/{name}/``; 404 for non-members,
    unknown names and files the run has not produced (yet)."""
    transition = transition_get(user=user, transition_id=transition_id)
    a, b = PurePosixPath(transition.clip_a.name), PurePosixPath(transition.clip_b.name)
    filename = f"{a.stem}-to-{b.stem}.{name}"
    return run_download_get(
        transition.run, TRANSITION_DOWNLOADS, name, filename, "the transition's run"
    )


def transition_list_for_clip(*, clip: Clip) -> QuerySet[Transition]:
    """Transitions out of or into ``clip`` (fetched with :func:`clip_get`, so visible to
    the user), newest first."""
    from_or_into = Transition.objects.filter(clip_a=clip) | Transition.objects.filter(clip_b=clip)
    return _related(from_or_into.filter(project_id=clip.project_id))


def transition_targets(*, user: User | AnonymousUser, clip: Clip) -> list[tuple[Clip, str]]:
    """The project's other clips with why each cannot follow ``clip`` (``""`` when it can:
    same skeleton up to joint order, see :func:`skeleton_mismatch`), newest first."""
    others = clip_list(user=user, project_id=clip.project_id).exclude(pk=clip.pk)
    return [(other, skeleton_mismatch(clip, other)) for other in others]


def bridge_library(clip_a: Clip, clip_b: Clip) -> list[Clip]:
    """The clips a bridge from A into B may pass through: the project's other clips with
    motion and A's skeleton (up to joint order), newest first, at most
    :data:`BRIDGE_LIBRARY_MAX`."""
    others = (
        Clip.objects.filter(project_id=clip_a.project_id)
        .exclude(pk__in=[clip_a.pk, clip_b.pk])
        .exclude(frames=0)
        .order_by("-created_at", "-id")
    )
    same = [clip for clip in others if not skeleton_mismatch(clip_a, clip)]
    return same[:BRIDGE_LIBRARY_MAX]


def skeleton_mismatch(clip_a: Clip, clip_b: Clip) -> str:
    """Why two clips' skeletons differ beyond joint order (for people), ``""`` if they
    match: every joint name once in each, with the same parent name."""
    joints_a, joints_b = _joints(clip_a), _joints(clip_b)
    if len(joints_a) != len(joints_b):
        return f"{len(joints_a)} joints against {len(joints_b)}."
    for name, parent in joints_a.items():
        if name not in joints_b:
            return f"joint {name!r} of clip {clip_a.pk} is not in clip {clip_b.pk}."
        if joints_b[name] != parent:
            return (
                f"joint {name!r} hangs from {parent!r} in one and {joints_b[name]!r} in the other."
            )
    return ""


def _joints(clip: Clip) -> dict[str, str | None]:
    """Joint name → parent name, from the clip's validation report."""
    return {str(row["name"]): row["parent"] for row in clip.report.get("joint_list", [])}
