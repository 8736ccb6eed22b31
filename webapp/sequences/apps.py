from django.apps import AppConfig


class SequencesConfig(AppConfig):
    name = "webapp.sequences"
    label = "sequences"

    def ready(self) -> None:
        """Register sequences (the ``sequence`` stage) as a kind of run."""
        from webapp.runs import registry
        from webapp.sequences import services, stages
        from webapp.sequences.models import SequenceArtifactKind

        registry.register(
            "sequences",
            stages={"sequence": stages.sequence_stage},
            artifact_kinds=dict(SequenceArtifactKind.choices),
            record_result=services.sequence_record_result,
        )
