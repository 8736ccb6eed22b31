from django.apps import AppConfig


class ClipsConfig(AppConfig):
    name = "webapp.clips"
    label = "clips"

    def ready(self) -> None:
        """Register the upload pipeline (``ingest``, ``clean``, ``analyze``) as a kind of run."""
        from webapp.clips import stages
        from webapp.clips.models import ArtifactKind
        from webapp.runs import registry

        registry.register(
            "clips",
            stages={
                "ingest": stages.ingest,
                "clean": stages.clean_stage,
                "analyze": stages.analyze_stage,
            },
            artifact_kinds=dict(ArtifactKind.choices),
        )
