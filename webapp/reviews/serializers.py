"""Input and output serializers of the review API (:mod:`webapp.reviews.api`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from motioncore import parameters as p
from webapp.core.parameters import api_field
from webapp.reviews.models import (
    MAX_APPROVALS_REQUIRED,
    Activity,
    Comment,
    CutMethod,
    Decision,
    FrameClip,
    Notification,
    Proposal,
    ReviewRule,
    Status,
    Verdict,
)
from webapp.reviews.notify import sentence
from webapp.reviews.selectors import proposal_versions

Username = serializers.SlugRelatedField[User]
MAX_ID = 2**63 - 1
MAX_FRAME = 10_000_000


def _username(**kwargs: Any) -> Username:
    return serializers.SlugRelatedField(slug_field="username", read_only=True, **kwargs)


# --- input -------------------------------------------------------------------------------------


def _one_source(data: dict[str, Any], *, required: bool) -> dict[str, Any]:
    """A proposal comes from a transition run (``transition``, ``method``) or from a
    sequence's join (``sequence`` and ``join``), not both."""
    if data.get("transition") is not None and data.get("sequence") is not None:
        raise serializers.ValidationError(
            {"sequence": "Give a transition or a sequence and its join, not both."}
        )
    if data.get("sequence") is not None:
        if data.get("join") is None:
            raise serializers.ValidationError({"join": "Which join of the sequence (1 = first)."})
        if data.get("method", CutMethod.MTP) != CutMethod.MTP:
            raise serializers.ValidationError(
                {"method": "A sequence's join is cut by MTP or by hand: leave out the method."}
            )
    elif data.get("join") is not None:
        raise serializers.ValidationError({"join": "A join needs its sequence."})
    elif required and data.get("transition") is None:
        raise serializers.ValidationError(
            {"transition": "Give a transition run, or a sequence and its join."}
        )
    return data


class ProposalCreateInputSerializer(serializers.Serializer[dict[str, Any]]):
    transition = serializers.IntegerField(
        min_value=1, required=False, help_text="A succeeded transition run."
    )
    method = serializers.ChoiceField(
        choices=CutMethod.choices,
        default=CutMethod.MTP,
        help_text="The transition's cut method proposed (a sequence's join: mtp).",
    )
    sequence = serializers.IntegerField(
        min_value=1, required=False, help_text="A rendered sequence (instead of a transition)."
    )
    join = serializers.IntegerField(
        min_value=1, required=False, help_text="The sequence's join: 1 = its first two clips."
    )
    title = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    summary = serializers.CharField(max_length=10000, required=False, allow_blank=True, default="")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return _one_source(attrs, required=True)


class ProposalReviseInputSerializer(serializers.Serializer[dict[str, Any]]):
    transition = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text="Another run between the same clips (default: the current version's).",
    )
    method = serializers.ChoiceField(choices=CutMethod.choices, required=False)
    sequence = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text="A sequence with a join between the same clips (for a sequence's join).",
    )
    join = serializers.IntegerField(min_value=1, required=False, help_text="That join's number.")
    title = serializers.CharField(max_length=200, required=False, allow_blank=True)
    summary = serializers.CharField(max_length=10000, required=False, allow_blank=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return _one_source(attrs, required=False)


class ReviewersInputSerializer(serializers.Serializer[dict[str, Any]]):
    reviewers = serializers.ListField(
        child=serializers.CharField(max_length=150),
        max_length=50,
        help_text="Usernames: the whole set of reviewers (an empty list removes them all).",
    )


class DecisionInputSerializer(serializers.Serializer[dict[str, Any]]):
    decision = serializers.ChoiceField(choices=Verdict.choices)
    note = serializers.CharField(max_length=10000, required=False, allow_blank=True, default="")


class ParameterSetSerializer(serializers.Serializer[dict[str, Any]]):
    alpha = api_field(p.ALPHA, default_note=" (omitted: not pinned)")
    theta_max_deg = api_field(p.THETA_MAX_DEG, default_note=" (omitted: not pinned)")
    measure = api_field(p.MEASURE, default_note=" (omitted: not pinned)")
    method = serializers.ChoiceField(choices=CutMethod.choices, required=False)
    blend = api_field(p.BLEND, default_note=" (omitted: not pinned)")


class CommentInputSerializer(serializers.Serializer[dict[str, Any]]):
    body = serializers.CharField(
        max_length=10000, help_text="Text; `@username` mentions a member of the project."
    )
    frame_clip = serializers.ChoiceField(choices=FrameClip.choices, default=FrameClip.TRANSITION)
    frame_start = serializers.IntegerField(
        min_value=0, max_value=MAX_FRAME, required=False, allow_null=True
    )
    frame_end = serializers.IntegerField(
        min_value=0,
        max_value=MAX_FRAME,
        required=False,
        allow_null=True,
        help_text="Inclusive; with frame_start.",
    )
    joint = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    parameter_set = ParameterSetSerializer(required=False, allow_null=True)
    reply_to = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, help_text="The comment this one answers."
    )


class ReviewRuleInputSerializer(serializers.Serializer[dict[str, Any]]):
    approvals_required = serializers.IntegerField(min_value=1, max_value=MAX_APPROVALS_REQUIRED)


class NotificationsReadInputSerializer(serializers.Serializer[dict[str, Any]]):
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        allow_null=True,
        max_length=1000,
        help_text="The notifications to mark read; absent or null: all of yours.",
    )


class ProposalListQuerySerializer(serializers.Serializer[dict[str, Any]]):
    status = serializers.ChoiceField(choices=Status.choices, required=False)


class NotificationQuerySerializer(serializers.Serializer[dict[str, Any]]):
    unread = serializers.BooleanField(required=False, default=False)


class ActivityQuerySerializer(serializers.Serializer[dict[str, Any]]):
    proposal = serializers.IntegerField(min_value=1, required=False)


# --- output ------------------------------------------------------------------------------------


class DecisionSerializer(serializers.ModelSerializer[Decision]):
    reviewer = _username(allow_null=True)
    version = serializers.IntegerField(source="proposal.version", read_only=True)

    class Meta:
        model = Decision
        fields = ["id", "proposal", "version", "reviewer", "decision", "note", "status_after"]
        fields += ["created_at"]
        read_only_fields = fields


class VersionSerializer(serializers.ModelSerializer[Proposal]):
    class Meta:
        model = Proposal
        fields = ["id", "version", "status", "method", "cut_frame", "entry_frame", "created_at"]
        read_only_fields = fields


APPROVALS_SCHEMA = {
    "type": "object",
    "properties": {
        "count": {
            "type": "integer",
            "description": "Assigned reviewers who approved this version.",
        },
        "required": {"type": "integer", "description": "The project's N."},
    },
    "required": ["count", "required"],
}


class ProposalSerializer(serializers.ModelSerializer[Proposal]):
    author = _username(allow_null=True)
    reviewers = serializers.SerializerMethodField()
    approvals = serializers.SerializerMethodField()
    report = serializers.SerializerMethodField()

    class Meta:
        model = Proposal
        fields = [
            "id", "project", "thread", "version", "status", "title", "summary", "transition",
            "sequence", "join_number", "clip_a", "clip_b", "method", "measure", "alpha",
            "theta_max_deg", "cut_frame", "entry_frame", "transition_frames", "blend", "metrics",
            "parameters", "author",
            "reviewers", "approvals", "report", "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_reviewers(self, proposal: Proposal) -> list[str]:
        return [a.reviewer.username for a in proposal.thread.reviewers.all()]

    @extend_schema_field(APPROVALS_SCHEMA)
    def get_approvals(self, proposal: Proposal) -> dict[str, int]:
        """From the prefetched reviewers and decisions (no query per proposal)."""
        assigned = {a.reviewer_id for a in proposal.thread.reviewers.all()}
        approved = {
            d.reviewer_id for d in proposal.decisions.all() if d.decision == Verdict.APPROVE
        }
        rule = getattr(proposal.project, "review_rule", None)  # None: no rule row, N = 1
        required = rule.approvals_required if isinstance(rule, ReviewRule) else 1
        return {"count": len(assigned & approved), "required": required}

    @extend_schema_field(
        {
            "type": "object",
            "properties": {"json": {"type": "string"}, "csv": {"type": "string"}},
            "required": ["json", "csv"],
        }
    )
    def get_report(self, proposal: Proposal) -> dict[str, str]:
        request = self.context.get("request")
        urls = {}
        for kind in ("json", "csv"):
            url = reverse(f"api:proposal-report-{kind}", args=[proposal.pk])
            urls[kind] = request.build_absolute_uri(url) if request else url
        return urls


class ProposalDetailSerializer(ProposalSerializer):
    decisions = DecisionSerializer(many=True, read_only=True)
    versions = serializers.SerializerMethodField()

    class Meta(ProposalSerializer.Meta):
        fields = [*ProposalSerializer.Meta.fields, "decisions", "versions"]
        read_only_fields = fields

    @extend_schema_field(VersionSerializer(many=True))
    def get_versions(self, proposal: Proposal) -> list[dict[str, Any]]:
        versions = proposal_versions(proposal=proposal)
        return list(VersionSerializer(versions, many=True).data)


class ReplySerializer(serializers.ModelSerializer[Comment]):
    author = _username(allow_null=True)
    resolved_by = _username(allow_null=True)
    mentions = serializers.SerializerMethodField()
    reply_to = serializers.IntegerField(source="parent_id", read_only=True, allow_null=True)
    version = serializers.IntegerField(source="proposal.version", read_only=True)
    parameter_set = serializers.JSONField(read_only=True, allow_null=True)

    class Meta:
        model = Comment
        fields = [
            "id", "thread", "proposal", "version", "reply_to", "author", "body", "frame_clip",
            "frame_start", "frame_end", "joint", "parameter_set", "mentions", "resolved_at",
            "resolved_by", "created_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_mentions(self, comment: Comment) -> list[str]:
        return sorted(user.username for user in comment.mentions.all())


class CommentSerializer(ReplySerializer):
    replies = ReplySerializer(many=True, read_only=True)

    class Meta(ReplySerializer.Meta):
        fields = [*ReplySerializer.Meta.fields, "replies"]
        read_only_fields = fields


class ReviewRuleSerializer(serializers.ModelSerializer[ReviewRule]):
    updated_by = _username(allow_null=True)
    updated_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="Null while the project uses the default."
    )
    rejection_blocks = serializers.SerializerMethodField()

    class Meta:
        model = ReviewRule
        fields = ["project", "approvals_required", "rejection_blocks", "updated_by", "updated_at"]
        read_only_fields = fields

    def get_rejection_blocks(self, rule: ReviewRule) -> bool:
        """Always true: any rejection rejects the version, whatever its approvals."""
        return True


class ActivitySerializer(serializers.ModelSerializer[Activity]):
    actor = _username(allow_null=True)
    text = serializers.SerializerMethodField()

    class Meta:
        model = Activity
        fields = ["id", "project", "actor", "verb", "proposal", "comment", "data", "text"]
        fields += ["created_at"]
        read_only_fields = fields

    def get_text(self, activity: Activity) -> str:
        return sentence(activity)


class NotificationSerializer(serializers.ModelSerializer[Notification]):
    activity = ActivitySerializer(read_only=True)

    class Meta:
        model = Notification
        fields = ["id", "activity", "read_at", "created_at"]
        read_only_fields = fields


class NotificationPageSerializer(serializers.Serializer[dict[str, Any]]):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    unread_count = serializers.IntegerField(help_text="All your unread notifications.")
    results = NotificationSerializer(many=True)


class NotificationsReadSerializer(serializers.Serializer[dict[str, Any]]):
    marked = serializers.IntegerField(help_text="How many were unread and are now read.")
    unread_count = serializers.IntegerField()
