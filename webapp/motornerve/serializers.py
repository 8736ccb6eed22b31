"""MotorNerve API bodies: a drive's input (the intent timeline checked by
:func:`motioncore.motornerve.timeline.parse`, errors naming the field), a training's
input, and both outputs."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from motioncore.errors import TimelineError
from motioncore.motornerve import timeline
from webapp.core.downloads import download_urls
from webapp.motornerve.models import Drive, Training
from webapp.motornerve.selectors import (
    DRIVE_DOWNLOADS,
    TRAINING_DOWNLOADS,
    drive_downloads_ready,
    training_downloads_ready,
)
from webapp.runs.serializers import RunSerializer

MAX_TRAINING_CLIPS = 200
MAX_EPOCHS = 60
MAX_ID = 2**31 - 1
"""Ids are database integers: larger ones are invalid, not a lookup."""

TIMELINE_SCHEMA = {
    "type": "object",
    "description": "Keyframed commands: each key holds from its time t (s) to the next. "
    "action idle|walk|run|interact; direction_deg the world direction of movement (0 "
    "along +Z, positive to the left); speed_mps 0-6; facing_deg the wanted world facing "
    "(default: where it moves); strength 0-1 (interactions).",
    "properties": {
        "duration_s": {"type": "number", "minimum": 0, "maximum": timeline.MAX_DURATION_S},
        "keys": {
            "type": "array",
            "minItems": 1,
            "maxItems": timeline.MAX_KEYS,
            "items": {
                "type": "object",
                "properties": {
                    "t": {"type": "number", "minimum": 0},
                    "action": {"type": "string", "enum": ["idle", "walk", "run", "interact"]},
                    "speed_mps": {"type": "number", "minimum": 0, "maximum": 6},
                    "direction_deg": {"type": "number"},
                    "facing_deg": {"type": "number", "nullable": True},
                    "strength": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["t"],
            },
        },
    },
    "required": ["keys"],
}


@extend_schema_field(TIMELINE_SCHEMA)
class TimelineField(serializers.JSONField):
    """An intent timeline; invalid ones answer 400 naming the field (``keys[2].t``)."""

    def to_internal_value(self, data: Any) -> Any:
        # Decoded JSON as it is: DRF's JSONField re-encodes it strictly, which turns a NaN
        # into "must be valid JSON" instead of naming the key that holds it.
        value = data if isinstance(data, dict | list) else super().to_internal_value(data)
        try:
            return timeline.parse(value).as_dict()
        except TimelineError as error:
            raise serializers.ValidationError({error.field: [error.message]}) from error


class DriveInputSerializer(serializers.Serializer[dict[str, Any]]):
    clip = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="The clip whose rig is driven."
    )
    timeline = TimelineField()
    training = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        allow_null=True,
        default=None,
        help_text="A succeeded training of the project whose weights to use; null: the "
        "shipped weights.",
    )
    foot_lock = serializers.BooleanField(default=True)
    record = serializers.BooleanField(
        default=False,
        help_text="Also add the result to the project's clips (BVH on the rig, then the "
        "usual pipeline); its id is `result.recorded_clip`.",
    )
    name = serializers.CharField(
        max_length=100, default="", allow_blank=True, help_text="The recorded clip's name."
    )


class DriveWeightsQuerySerializer(serializers.Serializer[dict[str, Any]]):
    """The Drive page's weights endpoints' query: ``?training=<id>`` or nothing (the
    shipped weights)."""

    training = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, default=None, allow_null=True
    )


class TrainingInputSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=120, default="MotorNerve weights")
    clips = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        min_length=1,
        max_length=MAX_TRAINING_CLIPS,
        help_text="The project's clips to learn from (at least 3 and 30 s of motion, "
        "humanoid with feet; the run fails with the reason otherwise).",
    )
    interact = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        default=list,
        max_length=MAX_TRAINING_CLIPS,
        help_text="Which of those clips are interactions (pick-ups, reaches): their "
        "frames away from the body's carriage are labelled interact.",
    )
    epochs = serializers.IntegerField(
        min_value=1,
        max_value=MAX_EPOCHS,
        default=None,
        allow_null=True,
        help_text="Epochs (null: the deployment's KINETOGRAPH_MOTORNERVE_TRAIN_EPOCHS).",
    )


def _downloads_schema(names: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "description": "Download URLs by name; null until the run has succeeded.",
        "properties": {n: {"type": "string", "format": "uri", "nullable": True} for n in names},
        "required": list(names),
    }


class DriveSerializer(serializers.ModelSerializer[Drive]):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    parameters = serializers.DictField(read_only=True)
    run = RunSerializer(read_only=True)
    result = serializers.DictField(
        read_only=True,
        help_text="The measures on the clip's rig (frames, fps, scale, duration_s, "
        "foot_skate_per_step_m, foot_slide_mean_mps, penetration_worst_m, "
        "max_joint_speed_degps, mean_speed_mps, interactions_queued_s); empty until the "
        "run has succeeded.",
    )
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = Drive
        fields = ["id", "project", "clip", "training", "parameters", "run", "result"]
        fields += ["downloads", "created_by", "created_at"]
        read_only_fields = fields

    @extend_schema_field(_downloads_schema(DRIVE_DOWNLOADS))
    def get_downloads(self, drive: Drive) -> dict[str, str | None]:
        ready = drive_downloads_ready(drive)
        return download_urls(
            self.context.get("request"), "api:motornerve-drive-download", drive.pk, ready
        )


class TrainingSerializer(serializers.ModelSerializer[Training]):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    parameters = serializers.DictField(read_only=True)
    run = RunSerializer(read_only=True)
    result = serializers.DictField(
        read_only=True,
        help_text="parameters (count), epochs, minutes per action and split, the last "
        "train/validation losses and the seconds it took; empty until it has succeeded.",
    )
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = Training
        fields = ["id", "project", "name", "parameters", "run", "result", "downloads"]
        fields += ["created_by", "created_at"]
        read_only_fields = fields

    @extend_schema_field(_downloads_schema(TRAINING_DOWNLOADS))
    def get_downloads(self, training: Training) -> dict[str, str | None]:
        ready = training_downloads_ready(training)
        route = "api:motornerve-training-download"
        return download_urls(self.context.get("request"), route, training.pk, ready)
