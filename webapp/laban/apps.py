from django.apps import AppConfig


class LabanConfig(AppConfig):
    name = "webapp.laban"
    label = "laban"

    def ready(self) -> None:
        """Register the animation of a score (the ``score`` stage) as a kind of run."""
        from webapp.laban import services, stages
        from webapp.laban.models import ScoreArtifactKind
        from webapp.runs import registry

        registry.register(
            "laban",
            stages={services.SCORE_STAGE: stages.score_stage},
            artifact_kinds=dict(ScoreArtifactKind.choices),
            record_result=services.score_animation_record_result,
        )
