from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webapp.webhooks"
    label = "webhooks"
