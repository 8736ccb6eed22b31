"""What a comment can be pinned to, checked against the motion data of its proposal.

* **Frames**: one frame (``frame_start``) or an inclusive range (``frame_start`` to
  ``frame_end``), counted in the transition clip (default), clip A or clip B, each
  from 0. The transition clip's length is the one the run reported for the chosen
  cut; A and B count their uploaded frames.
* **Joint**: a joint name of the clips' skeleton (both clips share it), from clip
  A's validation report; when the report lists no joints the name is not checked.
* **Parameter set**: ``alpha``, ``theta_max_deg``, ``measure`` and/or ``method``
  (ranges checked by the API's input serializer).
* **@mentions**: ``@username`` in the body (not preceded by a letter, digit, ``.``,
  ``+`` or ``-``, so ``ana@example.com`` is no mention; a trailing ``.`` ends the
  name). Every mentioned name must be a member of the project, or the comment is
  refused (400 ``unknown_mention`` listing the names): a mention that silently goes
  nowhere is worse than a retyped one. Usernames containing ``@`` cannot be mentioned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NoReturn

from django.contrib.auth.models import User

from webapp.core.errors import ServiceError
from webapp.projects.models import Membership
from webapp.reviews.models import FrameClip, Proposal

MENTION = re.compile(r"(?<![\w.+\-@])@([\w.+\-]+)")


@dataclass(frozen=True)
class FramePin:
    clip: str  # a FrameClip value
    start: int | None
    end: int | None


def frame_count(proposal: Proposal, clip: str) -> int | None:
    """Frames of the transition clip, A or B (``None`` when unknown)."""
    if clip == FrameClip.A:
        return proposal.clip_a.frames
    if clip == FrameClip.B:
        return proposal.clip_b.frames
    return proposal.transition_frames


def check_frames(proposal: Proposal, pin: FramePin) -> None:
    """400 ``frame_out_of_range`` unless the pin lies inside its clip."""
    if pin.start is None:
        if pin.end is not None:
            _refuse("frame_end", "A frame range needs frame_start.", "invalid_frame_range")
        return
    if pin.end is not None and pin.end < pin.start:
        message = f"frame_end ({pin.end}) comes before frame_start ({pin.start})."
        _refuse("frame_end", message, "invalid_frame_range")
    count = frame_count(proposal, pin.clip)
    if count is None:
        return
    for field, frame in (("frame_start", pin.start), ("frame_end", pin.end)):
        if frame is not None and not 0 <= frame < count:
            name = FrameClip(pin.clip).label.lower()
            message = f"Frame {frame} is outside {name} (frames 0 to {count - 1})."
            _refuse(field, message, "frame_out_of_range")


def joint_names(proposal: Proposal) -> list[str]:
    """The skeleton's joint names (clip A's validation report; empty when it has none)."""
    return [str(row["name"]) for row in proposal.clip_a.report.get("joint_list", [])]


def check_joint(proposal: Proposal, joint: str) -> None:
    """400 ``unknown_joint`` unless ``joint`` is a joint of the clips' skeleton."""
    names = joint_names(proposal)
    if joint and names and joint not in names:
        message = f"The clips' skeleton has no joint {joint!r}."
        raise ServiceError(
            message,
            code="unknown_joint",
            details={"fields": {"joint": [message]}, "joints": names},
        )


def mentioned_names(body: str) -> list[str]:
    """The ``@names`` of ``body``, each once, in order of appearance."""
    names = [match.rstrip(".") for match in MENTION.findall(body)]
    return list(dict.fromkeys(name for name in names if name))


def resolve_mentions(body: str, *, project_id: int) -> list[User]:
    """The project members ``body`` mentions; 400 ``unknown_mention`` for any other name
    (non-members and unknown users alike, so that nobody learns who exists)."""
    names = mentioned_names(body)
    if not names:
        return []
    members = Membership.objects.filter(project_id=project_id, user__username__in=names)
    found = {user.username: user for user in User.objects.filter(pk__in=members.values("user_id"))}
    unknown = [name for name in names if name not in found]
    if unknown:
        listed = ", ".join(f"@{name}" for name in unknown)
        message = f"Not a member of this project: {listed}."
        raise ServiceError(
            message,
            code="unknown_mention",
            details={"fields": {"body": [message]}, "names": unknown},
        )
    return [found[name] for name in names]


def _refuse(field: str, message: str, code: str) -> NoReturn:
    raise ServiceError(message, code=code, details={"fields": {field: [message]}})
