"""The life of one version of a transition proposal: a pure state machine (no Django).

A version starts ``open``. Reviewers' decisions and the author's revisions are
*events*; :func:`next_status` answers the status an event leads to, or raises
:class:`TransitionRefused` naming the status and the event.

=====================  ===============  =================================  ==========
status                 event            next status                        note
=====================  ===============  =================================  ==========
open                   approve          open, or approved once the         approval
                                        version has N approvals            rule
open                   request_changes  changes_requested
open                   reject           rejected                           any one
                                                                           rejection
                                                                           blocks
open                   revise           superseded (the new version is
                                        open)
changes_requested      request_changes  changes_requested                  more
                                                                           requests
changes_requested      reject           rejected
changes_requested      revise           superseded (the new version is     the way
                                        open)                              to reopen
changes_requested      approve          refused: revise first
approved, rejected,    anything         refused: terminal
superseded
=====================  ===============  =================================  ==========

Decisions:

* ``approved`` is terminal and cannot be reopened: an approved cut is what the
  team ships; to change it, propose again (a new proposal, a new thread).
* ``rejected`` is terminal too: a rejection blocks whatever the approvals.
* There is no ``reopen`` event: a version with changes requested is reopened by
  *revising* it (the old version becomes ``superseded``, the new one starts
  ``open`` with its decisions reset and the thread and reviewers kept).
* There is no ``withdraw``: an author who gives up asks a reviewer to reject.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    OPEN = "open"
    CHANGES_REQUESTED = "changes_requested"
    APPROVED = "approved"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"


class Event(StrEnum):
    APPROVE = "approve"
    REQUEST_CHANGES = "request_changes"
    REJECT = "reject"
    REVISE = "revise"


INITIAL = Status.OPEN
"""The status of a new proposal and of every new version."""

TERMINAL = frozenset({Status.APPROVED, Status.REJECTED, Status.SUPERSEDED})

TRANSITIONS: dict[tuple[Status, Event], Status] = {
    (Status.OPEN, Event.APPROVE): Status.APPROVED,  # once the rule is met (else stays open)
    (Status.OPEN, Event.REQUEST_CHANGES): Status.CHANGES_REQUESTED,
    (Status.OPEN, Event.REJECT): Status.REJECTED,
    (Status.OPEN, Event.REVISE): Status.SUPERSEDED,
    (Status.CHANGES_REQUESTED, Event.REQUEST_CHANGES): Status.CHANGES_REQUESTED,
    (Status.CHANGES_REQUESTED, Event.REJECT): Status.REJECTED,
    (Status.CHANGES_REQUESTED, Event.REVISE): Status.SUPERSEDED,
}
"""(status, event) → next status: every allowed pair. Any pair not here is refused."""

_WHY_REFUSED: dict[Status, str] = {
    Status.CHANGES_REQUESTED: "changes were requested: revise the proposal first",
    Status.APPROVED: "an approved proposal is final; propose again to change it",
    Status.REJECTED: "a rejected proposal is final; propose again",
    Status.SUPERSEDED: "a newer version replaced this one; act on the newest version",
}


class TransitionRefused(ValueError):
    """The event is not allowed in the status (``status``, ``event`` and a sentence)."""

    def __init__(self, status: Status, event: Event, reason: str) -> None:
        super().__init__(
            f"Cannot {event.value.replace('_', ' ')} a proposal that is "
            f"{status.value.replace('_', ' ')}: {reason}."
        )
        self.status = status
        self.event = event


def next_status(
    status: Status | str,
    event: Event | str,
    *,
    approvals: int = 0,
    approvals_required: int = 1,
) -> Status:
    """The status after ``event`` in ``status``.

    Args:
        status: the version's current status.
        event: what happens.
        approvals: for ``approve``, the version's approvals *including this one*
            (distinct assigned reviewers).
        approvals_required: the project's rule, N ≥ 1.

    Raises:
        TransitionRefused: the pair is not in :data:`TRANSITIONS`.
        ValueError: an unknown status or event, or a rule below 1.
    """
    current, happening = Status(status), Event(event)
    if approvals_required < 1:
        raise ValueError(f"approvals_required must be at least 1, not {approvals_required}")
    target = TRANSITIONS.get((current, happening))
    if target is None:
        raise TransitionRefused(current, happening, _WHY_REFUSED[current])
    if happening is Event.APPROVE and approvals < approvals_required:
        return current
    return target


def allowed_events(status: Status | str) -> list[Event]:
    """The events :func:`next_status` accepts in ``status`` (in :class:`Event` order)."""
    current = Status(status)
    return [event for event in Event if (current, event) in TRANSITIONS]
