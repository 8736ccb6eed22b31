"""A proposal version's review report: the decision, the parameters, the metrics table
and the whole thread, as JSON (:func:`review_report`) and CSV (:func:`review_report_csv`).

The CSV has two blocks separated by an empty row. The first has the columns
``section, key, value`` with sections ``proposal``, ``decision`` (status, approvals,
then one ``decision.<n>`` row per decision on this version), ``parameter`` and
``metric`` (``<method>.<metric>``, every method of the table). The second has one
row per comment (replies after the comment they answer) under its own header row
:data:`COMMENT_COLUMNS`. Text that a spreadsheet would run as a formula gets a
leading ``'``.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from django.utils import timezone

from webapp.reviews import states
from webapp.reviews.models import Comment, Decision, Proposal
from webapp.reviews.selectors import approvals_required, approver_ids, proposal_versions
from webapp.reviews.snapshot import available_methods

FORMAT = "kinetograph-review-report/1"
COMMENT_COLUMNS = (
    "comment",
    "reply_to",
    "version",
    "author",
    "created_at",
    "frame_clip",
    "frame_start",
    "frame_end",
    "joint",
    "parameter_set",
    "mentions",
    "resolved_by",
    "resolved_at",
    "body",
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PARAMETER_KEYS = (
    "method",
    "measure",
    "alpha",
    "theta_max_deg",
    "cut_frame",
    "entry_frame",
    "transition_frames",
)


def _username(user: Any) -> str | None:
    return user.username if user is not None else None


def _when(moment: Any) -> str | None:
    return moment.isoformat() if moment is not None else None


def review_report(proposal: Proposal) -> dict[str, Any]:
    """The report of one version as JSON-able data (keys ``format``, ``generated_at``,
    ``proposal``, ``decision``, ``parameters``, ``metrics``, ``versions``, ``thread``)."""
    return {
        "format": FORMAT,
        "generated_at": timezone.now().isoformat(),
        "proposal": {
            "id": proposal.pk,
            "thread": proposal.thread_id,
            "version": proposal.version,
            "title": proposal.title,
            "summary": proposal.summary,
            "author": _username(proposal.author),
            "created_at": _when(proposal.created_at),
            "transition": proposal.transition_id,
            "sequence": proposal.sequence_id,
            "join_number": proposal.join_number,
            "clip_a": _clip(proposal.clip_a),
            "clip_b": _clip(proposal.clip_b),
        },
        "decision": _decision(proposal),
        "parameters": {
            **{key: getattr(proposal, key) for key in PARAMETER_KEYS},
            "blend": proposal.blend,
            "run": proposal.parameters,
        },
        "metrics": {"chosen": proposal.metrics.get(proposal.method), "table": _table(proposal)},
        "versions": [
            {
                "id": v.pk,
                "version": v.version,
                "status": v.status,
                "method": v.method,
                "cut_frame": v.cut_frame,
                "entry_frame": v.entry_frame,
                "created_at": _when(v.created_at),
            }
            for v in proposal_versions(proposal=proposal)
        ],
        "thread": [_comment(c) for c in _roots(proposal)],
    }


def _clip(clip: Any) -> dict[str, Any]:
    return {"id": clip.pk, "name": clip.name, "frames": clip.frames, "fps": clip.fps}


def _decision(proposal: Proposal) -> dict[str, Any]:
    decisions = Decision.objects.filter(proposal=proposal).select_related("reviewer")
    return {
        "status": proposal.status,
        "final": proposal.status in states.TERMINAL,
        "approvals": len(approver_ids(proposal=proposal)),
        "approvals_required": approvals_required(project=proposal.project),
        "reviewers": sorted(a.reviewer.username for a in proposal.thread.reviewers.all()),
        "decisions": [
            {
                "reviewer": _username(d.reviewer),
                "decision": d.decision,
                "note": d.note,
                "status_after": d.status_after,
                "created_at": _when(d.created_at),
            }
            for d in decisions
        ],
    }


def _roots(proposal: Proposal) -> list[Comment]:
    comments = Comment.objects.filter(thread_id=proposal.thread_id, parent__isnull=True)
    related = comments.select_related("author", "resolved_by", "proposal")
    return list(
        related.prefetch_related(
            "mentions", "replies__author", "replies__proposal", "replies__mentions"
        )
    )


def _comment(comment: Comment, *, nested: bool = True) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": comment.pk,
        "reply_to": comment.parent_id,
        "version": comment.proposal.version,
        "author": _username(comment.author),
        "created_at": _when(comment.created_at),
        "body": comment.body,
        "frame_clip": comment.frame_clip,
        "frame_start": comment.frame_start,
        "frame_end": comment.frame_end,
        "joint": comment.joint or None,
        "parameter_set": comment.parameter_set,
        "mentions": sorted(u.username for u in comment.mentions.all()),
        "resolved_by": _username(comment.resolved_by),
        "resolved_at": _when(comment.resolved_at),
    }
    if nested:
        row["replies"] = [_comment(r, nested=False) for r in comment.replies.all()]
    return row


def review_report_csv(proposal: Proposal) -> str:
    """The report as CSV text (see the module docstring for its layout)."""
    report = review_report(proposal)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["section", "key", "value"])
    for key, value in report["proposal"].items():
        writer.writerow(["proposal", key, _cell(value)])
    decision = report["decision"]
    for key in ("status", "final", "approvals", "approvals_required", "reviewers"):
        writer.writerow(["decision", key, _cell(decision[key])])
    for n, made in enumerate(decision["decisions"], start=1):
        text = f"{made['reviewer']}: {made['decision']}" + (
            f" ({made['note']})" if made["note"] else ""
        )
        writer.writerow(["decision", f"decision.{n}", text])
    for key, value in report["parameters"].items():
        writer.writerow(["parameter", key, _cell(value)])
    for method, row in report["metrics"]["table"].items():
        for metric, value in row.items():
            writer.writerow(["metric", f"{method}.{metric}", _cell(value)])
    writer.writerow([])
    writer.writerow(COMMENT_COLUMNS)
    for root in report["thread"]:
        for comment in (root, *root["replies"]):
            writer.writerow(
                [_cell(comment[c if c != "comment" else "id"]) for c in COMMENT_COLUMNS]
            )
    return out.getvalue()


def _cell(value: Any) -> str:
    """A CSV cell: text as is (but ``'`` before a leading ``= + - @``, tab or CR, so that
    no spreadsheet runs it as a formula), ``None`` empty, lists and objects as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return "'" + value if value[:1] in FORMULA_STARTS else value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _table(proposal: Proposal) -> dict[str, dict[str, Any]]:
    """The metrics table with its methods in the pages' order and each row's metrics by
    name: the same report (and CSV rows) on SQLite and PostgreSQL, whose ``jsonb``
    does not keep key order."""
    table = proposal.metrics or {}
    return {
        m: {k: table[m][k] for k in sorted(table[m])} for m in available_methods({"metrics": table})
    }
