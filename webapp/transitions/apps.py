from django.apps import AppConfig


class TransitionsConfig(AppConfig):
    name = "webapp.transitions"
    label = "transitions"

    def ready(self) -> None:
        """Register transitions (the ``transition`` stage) as a kind of run."""
        from webapp.runs import registry
        from webapp.transitions import services, stages
        from webapp.transitions.models import TransitionArtifactKind

        registry.register(
            "transitions",
            stages={"transition": stages.transition_stage},
            artifact_kinds=dict(TransitionArtifactKind.choices),
            record_result=services.transition_record_result,
        )
