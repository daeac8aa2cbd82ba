from django.db import models


class RateCounter(models.Model):
    """Requests one client made in the current window of one rate limit (the API's
    throttles, ``verifier.services.rate_counters``): one row per limit and client,
    reset when a new window starts. Every web process counts in the same row."""

    key = models.CharField(max_length=200, primary_key=True)
    window = models.BigIntegerField()
    hits = models.IntegerField()
