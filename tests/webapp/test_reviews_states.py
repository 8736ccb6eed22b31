"""The proposal state machine (:mod:`webapp.reviews.states`): every (status, event) pair,
allowed or refused, written out here independently of the module's own table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from webapp.reviews import states
from webapp.reviews.states import Event, Status, TransitionRefused, next_status

REFUSED = None
N = 2  # the approval rule used below: two approvals approve

# (status, event) → next status with N = 2 when this event is the first approval /
# the N-th approval; REFUSED when the pair is not allowed.
EXPECTED: dict[tuple[Status, Event], tuple[Status | None, Status | None]] = {
    (Status.OPEN, Event.APPROVE): (Status.OPEN, Status.APPROVED),
    (Status.OPEN, Event.REQUEST_CHANGES): (Status.CHANGES_REQUESTED,) * 2,
    (Status.OPEN, Event.REJECT): (Status.REJECTED,) * 2,
    (Status.OPEN, Event.REVISE): (Status.SUPERSEDED,) * 2,
    (Status.CHANGES_REQUESTED, Event.APPROVE): (REFUSED, REFUSED),
    (Status.CHANGES_REQUESTED, Event.REQUEST_CHANGES): (Status.CHANGES_REQUESTED,) * 2,
    (Status.CHANGES_REQUESTED, Event.REJECT): (Status.REJECTED,) * 2,
    (Status.CHANGES_REQUESTED, Event.REVISE): (Status.SUPERSEDED,) * 2,
    **{
        (terminal, event): (REFUSED, REFUSED)
        for terminal in (Status.APPROVED, Status.REJECTED, Status.SUPERSEDED)
        for event in Event
    },
}


def test_the_expectations_cover_every_pair() -> None:
    assert set(EXPECTED) == {(s, e) for s in Status for e in Event}


@pytest.mark.parametrize(("status", "event"), sorted(EXPECTED), ids=lambda v: str(v))
def test_every_status_and_event(status: Status, event: Event) -> None:
    first, nth = EXPECTED[(status, event)]
    for approvals, expected in ((1, first), (N, nth)):
        if expected is REFUSED:
            with pytest.raises(TransitionRefused) as refused:
                next_status(status, event, approvals=approvals, approvals_required=N)
            message = str(refused.value)
            assert status.value.replace("_", " ") in message, message
            assert event.value.replace("_", " ") in message, message
            assert (refused.value.status, refused.value.event) == (status, event)
        else:
            got = next_status(status, event, approvals=approvals, approvals_required=N)
            assert got is expected


def test_one_approval_approves_under_the_default_rule() -> None:
    assert next_status("open", "approve", approvals=1) is Status.APPROVED
    assert next_status("open", "approve", approvals=2, approvals_required=3) is Status.OPEN
    assert next_status("open", "approve", approvals=3, approvals_required=3) is Status.APPROVED


def test_terminal_statuses_allow_nothing_and_open_ones_allow_something() -> None:
    for status in Status:
        allowed = states.allowed_events(status)
        assert (allowed == []) == (status in states.TERMINAL), status
    assert states.allowed_events("changes_requested") == [
        Event.REQUEST_CHANGES,
        Event.REJECT,
        Event.REVISE,
    ]
    assert states.INITIAL is Status.OPEN


def test_refusals_say_why() -> None:
    with pytest.raises(TransitionRefused, match="revise the proposal first"):
        next_status("changes_requested", "approve")
    with pytest.raises(TransitionRefused, match="approved proposal is final"):
        next_status("approved", "revise")
    with pytest.raises(TransitionRefused, match="newer version"):
        next_status("superseded", "reject")


def test_unknown_names_and_bad_rules_are_errors() -> None:
    with pytest.raises(ValueError, match="withdrawn"):
        next_status("withdrawn", "approve")
    with pytest.raises(ValueError, match="withdraw"):
        next_status("open", "withdraw")
    with pytest.raises(ValueError, match="at least 1"):
        next_status("open", "approve", approvals=1, approvals_required=0)


def test_the_module_is_pure_python() -> None:
    """Loaded on its own in a fresh interpreter, it pulls in no Django."""
    path = Path(states.__file__)
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('states', {str(path)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules['states'] = module\n"
        "spec.loader.exec_module(module)\n"
        "assert module.next_status('open', 'reject') == 'rejected'\n"
        "assert not any(m.split('.')[0] == 'django' for m in sys.modules), 'django loaded'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
