"""Team review of transition choices: proposals, their versions, reviewers, decisions,
comments pinned to motion data, the review rule, the activity log and notifications.

A :class:`ProposalThread` is one proposal through all its versions: every
:class:`Proposal` row is a version of it (``version`` 1, 2, ...), the newest one
holds the live status and the older ones are ``superseded``. Comments and
reviewer assignments belong to the thread, so a revision keeps both; decisions
belong to a version, so a revision resets them.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models

from webapp.clips.models import Clip
from webapp.projects.models import Project
from webapp.reviews import states
from webapp.sequences.models import Sequence
from webapp.transitions.models import Transition

MAX_APPROVALS_REQUIRED = 20


class Status(models.TextChoices):
    OPEN = states.Status.OPEN.value, "Open"
    CHANGES_REQUESTED = states.Status.CHANGES_REQUESTED.value, "Changes requested"
    APPROVED = states.Status.APPROVED.value, "Approved"
    REJECTED = states.Status.REJECTED.value, "Rejected"
    SUPERSEDED = states.Status.SUPERSEDED.value, "Superseded"


class CutMethod(models.TextChoices):
    """The transition report's cut methods (``result.methods``)."""

    MTP = "mtp", "MTP"
    END = "end", "End of clip"
    FIXED70 = "fixed70", "70 % of A"
    THRESHOLD = "threshold", "Speed threshold"


class ProposalThread(models.Model):
    """One proposal through its versions; owns the comments and the reviewers."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="proposal_threads")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"proposal thread {self.pk}"


class Proposal(models.Model):
    """One version of a proposed transition: clip A cut at ``cut_frame`` into clip B
    entered at ``entry_frame`` (B's frame at A's frame rate, as in the transition
    report), with the parameters and the metrics table of the run it came from: a
    transition run (``transition``) or one join of a sequence (``sequence`` and
    ``join_number``, 1 for the join of its first two clips)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="proposals")
    thread = models.ForeignKey(ProposalThread, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField(default=1)
    transition = models.ForeignKey(
        Transition, null=True, blank=True, on_delete=models.SET_NULL, related_name="proposals"
    )
    sequence = models.ForeignKey(
        Sequence, null=True, blank=True, on_delete=models.SET_NULL, related_name="proposals"
    )
    join_number = models.PositiveSmallIntegerField(null=True, blank=True)
    clip_a = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="proposals_from")
    clip_b = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="proposals_into")
    method = models.CharField(max_length=16, choices=CutMethod.choices)
    measure = models.CharField(max_length=16)  # the momentum curve: speed, energy, pca
    alpha = models.FloatField()
    theta_max_deg = models.FloatField()
    cut_frame = models.PositiveIntegerField()
    entry_frame = models.PositiveIntegerField()
    transition_frames = models.PositiveIntegerField(null=True, blank=True)
    blend = models.JSONField(default=dict)  # method, duration_s, layout
    metrics = models.JSONField(default=dict)  # the table: cut method -> metric -> value
    parameters = models.JSONField(default=dict)  # run parameters, cut, entry, engine, ...
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=24, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["thread", "version"], name="one_proposal_per_version")
        ]
        indexes = [models.Index(fields=["project", "status"])]

    def __str__(self) -> str:
        return f"proposal {self.pk} (v{self.version}): {self.title}"


class ReviewerAssignment(models.Model):
    thread = models.ForeignKey(ProposalThread, on_delete=models.CASCADE, related_name="reviewers")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_assignments"
    )
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["thread", "reviewer"], name="one_assignment_per_user")
        ]


class Verdict(models.TextChoices):
    APPROVE = states.Event.APPROVE.value, "Approve"
    REQUEST_CHANGES = states.Event.REQUEST_CHANGES.value, "Request changes"
    REJECT = states.Event.REJECT.value, "Reject"


class Decision(models.Model):
    """A reviewer's decision on one version (the version's ``proposal``)."""

    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="decisions")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    decision = models.CharField(max_length=24, choices=Verdict.choices)
    note = models.TextField(blank=True)
    status_after = models.CharField(max_length=24, choices=Status.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]


class FrameClip(models.TextChoices):
    """Which clip a comment's frames count in."""

    TRANSITION = "transition", "The transition clip"
    A = "a", "Clip A"
    B = "b", "Clip B"


class Comment(models.Model):
    """A note in a thread, made on one version, optionally pinned to a frame or a frame
    range (of the transition clip, A or B), a joint and a parameter set. Replies point at
    a top-level comment (``parent``); top-level comments can be resolved."""

    thread = models.ForeignKey(ProposalThread, on_delete=models.CASCADE, related_name="comments")
    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="comments")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    body = models.TextField()
    frame_clip = models.CharField(
        max_length=16, choices=FrameClip.choices, default=FrameClip.TRANSITION
    )
    frame_start = models.PositiveIntegerField(null=True, blank=True)
    frame_end = models.PositiveIntegerField(null=True, blank=True)  # inclusive
    joint = models.CharField(max_length=200, blank=True)
    parameter_set = models.JSONField(null=True, blank=True)  # alpha, theta_max_deg, ...
    mentions: models.ManyToManyField[User, models.Model] = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]


class ReviewRule(models.Model):
    """When a version is approved: ``approvals_required`` approvals from assigned
    reviewers; any rejection blocks. A project without a row uses the defaults."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="review_rule")
    approvals_required = models.PositiveSmallIntegerField(default=1)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(approvals_required__gte=1)
                & models.Q(approvals_required__lte=MAX_APPROVALS_REQUIRED),
                name="approvals_required_in_range",
            )
        ]


class Activity(models.Model):
    """One entry of a project's log: who did what (``verb``, also the webhook event)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="activities")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    verb = models.CharField(max_length=64)
    proposal = models.ForeignKey(
        Proposal, null=True, blank=True, on_delete=models.CASCADE, related_name="activities"
    )
    comment = models.ForeignKey(
        Comment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "activities"


class Notification(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    activity = models.ForeignKey(Activity, on_delete=models.CASCADE, related_name="notifications")
    read_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "activity"], name="one_notification_per_user")
        ]
        indexes = [models.Index(fields=["user", "read_at"])]
