from django.apps import AppConfig


class PfnnConfig(AppConfig):
    name = "webapp.pfnn"
    label = "pfnn"

    def ready(self) -> None:
        """Register PFNN walks (the ``pfnn`` stage) as a kind of run."""
        from webapp.pfnn import services, stages
        from webapp.pfnn.models import PfnnArtifactKind
        from webapp.runs import registry

        registry.register(
            "pfnn",
            stages={"pfnn": stages.pfnn_stage},
            artifact_kinds=dict(PfnnArtifactKind.choices),
            record_result=services.generation_record_result,
        )
