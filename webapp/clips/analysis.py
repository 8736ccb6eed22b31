"""Recomputing a clip's analysis at other parameters, synchronously.

The ``analyze`` stage stores the expensive part (momentum curves, contacts, gait
phase: :class:`motioncore.analysis.Features`) as an ``.npz`` artifact; changing α,
θ_max or the momentum measure only re-runs the cheap part
(:func:`motioncore.analysis.analyze`, milliseconds), so the API answers at once.
Loaded features are cached per stored file (by its sha256) in each process.

The cheap part still grows with the clip: past ``ANALYSIS_SYNC_MAX_FRAMES`` frames a
request is answered from the stored analysis when it asks for the parameters that
analysis was made at, and refused otherwise (409 ``analysis_too_long``, pointing at a
run with those parameters: ``POST clips/{id}/runs/``), so no request recomputes a long
clip.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User

from motioncore import analysis
from motioncore import parameters as p
from motioncore.parameters import Measure
from webapp.clips.models import ArtifactKind, Clip
from webapp.clips.selectors import clip_artifact, clip_artifact_json, clip_get
from webapp.core.errors import Conflict, NotFound, ServiceError
from webapp.projects.models import Role
from webapp.projects.permissions import require_role

FEATURE_CACHE_SIZE = 32
DEFAULT_PARAMETERS: dict[str, Any] = {q.name: q.default for q in p.ANALYSIS}
"""α, θ_max and the measure at their defaults (:mod:`motioncore.parameters`)."""


def analysis_parameters(clip: Clip, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` over the clip's saved parameters (saved under earlier names too) over
    :data:`DEFAULT_PARAMETERS`."""
    stored, _ = p.renamed(clip.analysis_parameters)
    saved = {k: v for k, v in stored.items() if k in DEFAULT_PARAMETERS}
    chosen = {k: v for k, v in given.items() if k in DEFAULT_PARAMETERS and v is not None}
    return {**DEFAULT_PARAMETERS, **saved, **chosen}


def clip_analysis(
    *,
    user: User | AnonymousUser,
    clip_id: int,
    alpha: float | None = None,
    theta_max_deg: float | None = None,
    measure: Measure | None = None,
    next_clip_id: int | None = None,
) -> dict[str, Any]:
    """The analysis of the clip at these parameters (missing ones: the clip's saved
    parameters, else seed 000's defaults); with ``next_clip_id``, condition (2) of the
    MTP test uses that clip's initial velocity (same project). 404 for non-members and
    before an ``analyze`` stage has succeeded."""
    clip = clip_get(user=user, clip_id=clip_id)
    chosen = analysis_parameters(
        clip, {"alpha": alpha, "theta_max_deg": theta_max_deg, "measure": measure}
    )
    if clip.frames > settings.ANALYSIS_SYNC_MAX_FRAMES:
        return _stored_analysis(clip, chosen, next_clip_id)
    next_features = None
    if next_clip_id is not None:
        following = clip_get(user=user, clip_id=next_clip_id)
        if following.project_id != clip.project_id:
            raise ServiceError(
                "The next clip must be in the same project.", code="different_projects"
            )
        next_features = _features(following)
    result = analysis.analyze(_features(clip), **chosen, next_features=next_features)
    return {
        "clip": clip.pk,
        "next_clip": next_clip_id,
        "available": True,
        "saved_parameters": analysis_parameters(clip, {}),
        **result.as_dict(),
    }


def _stored_analysis(
    clip: Clip, chosen: dict[str, Any], next_clip_id: int | None
) -> dict[str, Any]:
    """The stored analysis of a clip too long to recompute in a request, if it was made at
    ``chosen`` (and without a next clip); else the 409 that says how to get it."""
    stored = clip_analysis_stored(clip)
    made_at = (stored or {}).get("parameters", {})
    same = all(made_at.get(key) == value for key, value in chosen.items())
    if stored is not None and stored.get("available", True) and same and next_clip_id is None:
        return {
            "clip": clip.pk,
            "next_clip": None,
            "saved_parameters": analysis_parameters(clip, {}),
            **stored,
        }
    limit = settings.ANALYSIS_SYNC_MAX_FRAMES
    raise Conflict(
        f"Clip {clip.pk} has {clip.frames} frames: more than the {limit} that are analysed "
        "during a request. Start a run with these parameters (POST "
        f"/api/v1/clips/{clip.pk}/runs/ with alpha, theta_max_deg and measure); its "
        "analysis is then served from storage.",
        code="analysis_too_long",
        details={
            "frames": clip.frames,
            "maximum": limit,
            "setting": "KINETOGRAPH_ANALYSIS_SYNC_MAX_FRAMES",
            "parameters": chosen,
            "run_url": f"/api/v1/clips/{clip.pk}/runs/",
        },
    )


def clip_analysis_save(
    *, user: User, clip_id: int, alpha: float, theta_max_deg: float, measure: Measure
) -> dict[str, Any]:
    """Store α, θ_max and the measure as the clip's analysis parameters (editors and
    owners): the defaults of the analysis the API and the pages show. Returns the
    analysis at them."""
    clip = clip_get(user=user, clip_id=clip_id)
    require_role(project=clip.project, user=user, role=Role.EDITOR)
    result = clip_analysis(  # 404 before an analysis exists: nothing is saved then
        user=user, clip_id=clip_id, alpha=alpha, theta_max_deg=theta_max_deg, measure=measure
    )
    chosen = {"alpha": alpha, "theta_max_deg": theta_max_deg, "measure": measure}
    clip.analysis_parameters = chosen
    clip.save(update_fields=["analysis_parameters"])
    return {**result, "saved_parameters": chosen}


def _features(clip: Clip) -> analysis.Features:
    artifact = clip_artifact(clip, ArtifactKind.ANALYSIS_FEATURES)
    if artifact is None or not artifact.file.name:
        reason = _unavailable_reason(clip)
        if reason:
            raise NotFound(f"Clip {clip.pk} cannot be analysed: {reason}.", code="no_analysis")
        raise NotFound(
            f"Clip {clip.pk} has no analysis yet: it appears when a run with the analyze "
            "stage has succeeded (start a run)."
        )
    if not artifact.file.storage.exists(artifact.file.name):
        raise NotFound(f"The stored analysis of clip {clip.pk} is missing; start a new run.")
    return _load(artifact.file.name, artifact.sha256, artifact.file.storage)


def clip_analysis_stored(clip: Clip) -> dict[str, Any] | None:
    """The newest stored ``analysis.json`` of the clip (at its run's parameters), if any."""
    return clip_artifact_json(clip, ArtifactKind.ANALYSIS)


def _unavailable_reason(clip: Clip) -> str:
    """Why the newest analysis of the clip could not be made (``""`` if there is none)."""
    head = clip_analysis_stored(clip)
    if head is None or head.get("available", True):
        return ""
    return str(head.get("reason", "unknown"))


@lru_cache(maxsize=FEATURE_CACHE_SIZE)
def _load(name: str, sha256: str, storage: Any) -> analysis.Features:
    with storage.open(name, "rb") as handle:
        return analysis.Features.from_npz(handle.read())
