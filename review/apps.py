from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review queue"

    def ready(self) -> None:
        # connects the receivers (a reviewer who signs out releases their leases)
        from review import signals  # noqa: F401
