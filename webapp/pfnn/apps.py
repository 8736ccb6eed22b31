from django.apps import AppConfig


class PfnnConfig(AppConfig):
    name = "webapp.pfnn"
    label = "pfnn"
