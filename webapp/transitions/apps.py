from django.apps import AppConfig


class TransitionsConfig(AppConfig):
    name = "webapp.transitions"
    label = "transitions"
