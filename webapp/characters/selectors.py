"""Character reads, scoped to the user's memberships (404 for other projects'), and
their downloads: the body the players pose, the file as uploaded, and a clip of the
project on the character (its viewer arrays, BVH and GLB, made when asked for)."""

from __future__ import annotations

import json

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from motioncore import export
from webapp.characters.models import Character
from webapp.characters.services import character_rig
from webapp.clips.selectors import clip_download_get, clip_get, download_of
from webapp.core.downloads import Download
from webapp.core.errors import NotFound, ServiceError
from webapp.core.glb import GLB_CONTENT_TYPE, OnCharacter, motion_on_character, with_character
from webapp.projects.selectors import project_get, project_list

CHARACTER_DOWNLOADS = ("body.glb", "original")
"""What ``GET characters/{id}/download/{name}/`` offers: the body the players pose (the
character at rest, skinned, no animation) and the file as uploaded."""
ON_CHARACTER_DOWNLOADS = ("viewer.json", "motion.bvh", "motion.glb")
"""What ``GET characters/{id}/clips/{clip_id}/download/{name}/`` offers: the clip's
cleaned motion retargeted onto the character."""


def character_get(*, user: User | AnonymousUser, character_id: int) -> Character:
    found = (
        Character.objects.filter(pk=character_id, project__in=project_list(user=user))
        .select_related("project", "created_by")
        .first()
    )
    if found is None:
        raise NotFound("No such character.")
    return found


def character_list(*, user: User | AnonymousUser, project_id: int) -> QuerySet[Character]:
    """The project's characters, newest first; 404 for non-members."""
    project = project_get(user=user, project_id=project_id)
    return Character.objects.filter(project=project).select_related("created_by")


def character_download_get(*, user: User | AnonymousUser, character_id: int, name: str) -> Download:
    character = character_get(user=user, character_id=character_id)
    if name not in CHARACTER_DOWNLOADS:
        raise NotFound(f"No download called {name!r}; try one of {', '.join(CHARACTER_DOWNLOADS)}.")
    if name == "original":
        return download_of(character.original, character.name)
    stem = character.name.rsplit(".", 1)[0] or "character"
    download = download_of(character.body, f"{stem}.body.glb")
    return Download(download.file, download.filename, GLB_CONTENT_TYPE)


def character_param(*, user: User | AnonymousUser, value: str | None) -> OnCharacter | None:
    """The character a download's ``?character=`` names (``None`` without one); 400
    ``invalid_character_id`` for what is not an id, 404 for a character the user cannot
    see."""
    if value is None or value == "":
        return None
    if not value.isdigit():
        raise ServiceError(
            f"?character= takes a character's id, not {value!r}.", code="invalid_character_id"
        )
    character = character_get(user=user, character_id=int(value))
    return OnCharacter(character_rig(character), character.name)


def clip_on_character_get(
    *, user: User | AnonymousUser, character_id: int, clip_id: int, name: str
) -> Download:
    """The clip's cleaned motion on the character, as ``name`` (one of
    :data:`ON_CHARACTER_DOWNLOADS`); 404 for non-members, a clip of another project, or
    a clip not cleaned yet; 413 past ``KINETOGRAPH_GLB_MAX_SAMPLES``."""
    character = character_get(user=user, character_id=character_id)
    clip = clip_get(user=user, clip_id=clip_id)
    if clip.project_id != character.project_id:
        raise NotFound("No such clip in the character's project.")
    if name not in ON_CHARACTER_DOWNLOADS:
        raise NotFound(
            f"No download called {name!r}; try one of {', '.join(ON_CHARACTER_DOWNLOADS)}."
        )
    chosen = OnCharacter(character_rig(character), character.name)

    def cleaned(kind: str) -> Download:
        return clip_download_get(user=user, clip_id=clip.pk, name=kind)

    if name != "viewer.json":
        return with_character(cleaned, f"cleaned.{name.rsplit('.', 1)[1]}", chosen)
    on = motion_on_character(cleaned("cleaned.bvh"), chosen)
    arrays = json.dumps(export.viewer_arrays(on), separators=(",", ":")).encode()
    stem = f"{clip.name.rsplit('.', 1)[0]}.on-{character.name.rsplit('.', 1)[0]}"
    return Download(arrays, f"{stem}.viewer.json", "application/json")
