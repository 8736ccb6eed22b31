"""GLB downloads: every result's motion on the mannequin made from its own skeleton
(:mod:`motioncore.character`), as binary glTF 2.0.

A result's GLB is made from its stored BVH when it is asked for (nothing more is
stored): a download name ending in ``.glb`` names the BVH artifact it is made from in
its app's downloads table (``"cleaned.glb"`` → the cleaned BVH). The BVH is read as an
upload is (unit and up axis guessed from the body); the GLB is the mannequin in the
clip's rest pose (less the bones that are translations, such as a carrier root's:
:func:`motioncore.character.bones.translated_bones`) with one animation of every frame.
Bounded by
``KINETOGRAPH_GLB_MAX_SAMPLES`` (frames × joints): past it, 413 naming the setting.

With a character (a download's ``?character=ID``, resolved by the view:
:func:`webapp.characters.selectors.character_rig_param`), :func:`with_character` makes
the ``.glb`` or ``.bvh`` download from the BVH of the same stem (``walk.glb`` and
``walk.bvh`` from ``walk.bvh``), retargeted onto the character
(:func:`motioncore.character.rig.clip_on_rig`): the character with the animation, or
the motion on the character's rig.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings

from motioncore import bvh
from motioncore.character.bones import translated_bones
from motioncore.character.glb import glb_bytes
from motioncore.character.mannequin import mannequin
from motioncore.character.rig import CharacterRig, clip_on_rig
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from webapp.core.downloads import Download, download_bytes
from webapp.core.errors import ServiceError, limit_exceeded

GLB_SUFFIX = ".glb"
GLB_CONTENT_TYPE = "model/gltf-binary"


def is_glb(name: str) -> bool:
    """Whether the download ``name`` is a GLB made from a BVH."""
    return name.lower().endswith(GLB_SUFFIX)


@dataclass(frozen=True)
class OnCharacter:
    """A character a download is made on: its rig and its name (for the file name)."""

    rig: CharacterRig
    name: str


def glb_download(motion: Download, filename: str) -> Download:
    """The motion in ``motion`` (a stored or made BVH) on its mannequin, as the GLB
    ``filename``."""
    clip = _motion(motion)
    _bounded(clip.num_frames * clip.skeleton.num_joints, clip)
    try:
        body = mannequin(clip.skeleton, skip=translated_bones(clip))
        made = glb_bytes(clip, body, name=filename.rsplit(".", 1)[0])
    except ValueError as error:  # a skeleton with no bone to make a mannequin of
        raise ServiceError(f"No mannequin for this motion: {error}", code="no_mannequin") from error
    return Download(made, filename, GLB_CONTENT_TYPE)


def with_character(
    get: Callable[[str], Download], name: str, character: OnCharacter | None
) -> Download:
    """``get(name)``, or with a character the ``.glb`` / ``.bvh`` download ``name`` made
    on it from ``get`` of the BVH of the same stem (see the module docstring); 400
    ``character_not_applicable`` for the other kinds."""
    if character is None:
        return get(name)
    stem, dot, suffix = name.rpartition(".")
    if not dot or suffix.lower() not in ("glb", "bvh"):
        raise ServiceError(
            f"?character= applies to the .glb and .bvh downloads, not {name!r}.",
            code="character_not_applicable",
        )
    motion = get(f"{stem}.bvh")
    on = motion_on_character(motion, character)
    made_stem = f"{motion.filename.rsplit('.', 1)[0]}.on-{character.name.rsplit('.', 1)[0]}"
    if suffix.lower() == "bvh":
        return Download(bvh.dump(on).encode(), f"{made_stem}.bvh", "application/octet-stream")
    return Download(
        glb_bytes(on, character.rig.mesh, name=made_stem), f"{made_stem}.glb", GLB_CONTENT_TYPE
    )


def motion_on_character(motion: Download, character: OnCharacter) -> Clip:
    """The BVH in ``motion`` retargeted onto ``character``; 400 ``unreadable`` /
    ``retarget_failed``, 413 past ``KINETOGRAPH_GLB_MAX_SAMPLES`` (frames × the
    character's joints)."""
    clip = _motion(motion)
    _bounded(clip.num_frames * character.rig.skeleton.num_joints, clip)
    try:
        return clip_on_rig(clip, character.rig)
    except MotionCoreError as error:
        raise ServiceError(
            f"The motion could not be retargeted: {error}", code="retarget_failed"
        ) from error


def _motion(motion: Download) -> Clip:
    try:
        return bvh.load(download_bytes(motion))
    except MotionCoreError as error:
        raise ServiceError(f"The motion could not be read: {error}", code="unreadable") from error


def _bounded(samples: int, clip: Clip) -> None:
    """413 past ``KINETOGRAPH_GLB_MAX_SAMPLES`` (``samples``: frames × joints made)."""
    if samples > settings.GLB_MAX_SAMPLES:
        raise limit_exceeded(
            f"{clip.num_frames} frames of {samples // max(clip.num_frames, 1)} joints is more "
            f"than the {settings.GLB_MAX_SAMPLES:,} samples a GLB download holds; download "
            "the BVH.",
            limit="glb_max_samples",
            value=samples,
            setting="KINETOGRAPH_GLB_MAX_SAMPLES",
        )
