from django.apps import AppConfig


class ToyKindConfig(AppConfig):
    name = "support.toykind"
    label = "toykind"

    def ready(self) -> None:
        """Register the toy kind of run, exactly as a real app registers its own."""
        from support.toykind import services, stages
        from webapp.runs import registry

        registry.register(
            "toykind",
            stages={stages.TOY_STAGE: stages.toy_stage},
            artifact_kinds={stages.TOY_NOTE: "Toy note (text)"},
            record_result=services.toy_record_result,
        )
