from django.apps import AppConfig


class ClipsConfig(AppConfig):
    name = "webapp.clips"
    label = "clips"
