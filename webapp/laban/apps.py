from django.apps import AppConfig


class LabanConfig(AppConfig):
    name = "webapp.laban"
    label = "laban"
