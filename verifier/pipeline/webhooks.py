"""Webhook delivery task: one try per run, retried with exponential backoff.

Run eagerly (tests, the in-process ``manage.py ingest``) there is no worker to come
back later, so the remaining tries are made at once instead of after the countdown.
"""

from __future__ import annotations

from celery import Task, shared_task

from verifier.services.enqueue import DELIVER_WEBHOOK
from verifier.services.webhooks import webhook_deliver


@shared_task(name=DELIVER_WEBHOOK, bind=True, max_retries=None)
def deliver_webhook(self: Task, delivery_id: int) -> bool:
    while True:
        result = webhook_deliver(delivery_id=delivery_id)
        if result.retry_in is None:
            return result.delivered
        if not self.request.is_eager:
            raise self.retry(countdown=result.retry_in)
