from django.apps import AppConfig


class VerifierConfig(AppConfig):
    name = "verifier"
    verbose_name = "Verification engine"

    def ready(self) -> None:
        from verifier import checks  # noqa: F401  (registers system checks)
