from django.apps import AppConfig


class CharactersConfig(AppConfig):
    name = "webapp.characters"
    label = "characters"
