import os
from typing import Any

from celery import Celery
from celery.signals import celeryd_after_setup, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("spanproof")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@celeryd_after_setup.connect
def size_model_threads(sender: str, instance: Any, **kwargs: Any) -> None:
    """Threads per task for the models (``verifier.worker_threads``), once the worker
    knows its concurrency and before its pool starts. A pool of threads runs tasks in
    this process, so torch is sized here; prefork children size it themselves."""
    from celery.concurrency.prefork import TaskPool as PreforkPool

    from verifier import worker_threads

    worker_threads.resolve(concurrency=int(instance.concurrency))
    pool = instance.pool_cls
    if not (isinstance(pool, type) and issubclass(pool, PreforkPool)):
        worker_threads.apply()


@worker_process_init.connect
def apply_model_threads(**kwargs: Any) -> None:
    from verifier import worker_threads

    worker_threads.apply()
