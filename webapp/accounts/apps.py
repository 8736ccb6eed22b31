from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "webapp.accounts"
    label = "accounts"

    def ready(self) -> None:
        """Revoke the API token at every log-out (:mod:`webapp.accounts.receivers`)."""
        from django.contrib.auth.signals import user_logged_out

        from webapp.accounts.receivers import on_logged_out

        user_logged_out.connect(on_logged_out, dispatch_uid="accounts.on_logged_out")
