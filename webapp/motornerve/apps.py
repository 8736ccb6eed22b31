from django.apps import AppConfig


class MotorNerveConfig(AppConfig):
    name = "webapp.motornerve"
    label = "motornerve"

    def ready(self) -> None:
        """Register MotorNerve drives and trainings as a kind of run."""
        from webapp.motornerve import services, stages
        from webapp.motornerve.models import MotorNerveArtifactKind
        from webapp.runs import registry

        registry.register(
            "motornerve",
            stages={
                stages.DRIVE_STAGE: stages.drive_stage,
                stages.TRAIN_STAGE: stages.train_stage,
            },
            artifact_kinds=dict(MotorNerveArtifactKind.choices),
            record_result=services.motornerve_record_result,
        )
