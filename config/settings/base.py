"""Settings shared by every environment. Values come from the environment (django-environ)."""

import datetime as dt
import os
from pathlib import Path

import environ
from csp.constants import NONCE, NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

SECRET_KEY = env("DJANGO_SECRET_KEY", default="")
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "apps.core",
    "apps.accounts",
    "apps.catalog",
    "apps.shipments",
    "apps.warehouse",
    "apps.compliance",
    "apps.documents",
    "apps.clusters",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # /healthz/ answers before host validation (the container health check calls 127.0.0.1).
    "apps.core.views_health.HealthCheckMiddleware",
    # JSON for every error under /api/, DEBUG on or off (apps/core/errors.py).
    "apps.core.errors.ApiJsonErrorsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "apps.core.audit.AuditContextMiddleware",
    # A write request and its response are one transaction (ATOMIC_REQUESTS stays off: reads
    # keep autocommit; apps/core/middleware.py says why).
    "apps.core.middleware.AtomicWriteMiddleware",
    # Last, as django-axes asks: turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

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
                "apps.accounts.context_processors.navigation",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
# Off: AtomicWriteMiddleware makes each write request atomic with its whole response instead.
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent writers (`make run` serves requests in threads): write-ahead log so reads never
    # wait for a writer, transactions that take the write lock when they begin (a deferred one
    # that reads, then writes, fails at once with "database is locked" when another writer came
    # first), and a wait of up to 20 s for that lock. Parallel changes then queue as on
    # PostgreSQL: one wins, the others see its result (a 409, not a 500).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

# Sign-in limits (django-axes; docs/security.md). The Axes backend comes first: it refuses a
# locked-out attempt before ModelBackend hashes the password, so a refused guess costs a query,
# not a PBKDF2 hash. 10 failures within 15 minutes lock the account (from any address) and,
# separately, the address (whatever account it tries) until 15 minutes after the last one.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # ModelBackend that also refuses users of a deactivated organisation (sign-in and sessions).
    "apps.accounts.backends.OrganisationAwareModelBackend",
]
AXES_FAILURE_LIMIT = env.int("RACKPASS_LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = dt.timedelta(minutes=env.int("RACKPASS_LOGIN_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
# Attempts made while locked out are refused without being counted: a locked-out address cannot
# go on to lock every account out.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A success clears that account's failures from that address only (apps.accounts.signals); axes'
# own reset would clear every failure from the address, so signing in to one's own account would
# wipe the guesses made at others.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# The same client address as the API throttles (REST_FRAMEWORK["NUM_PROXIES"]).
AXES_CLIENT_IP_CALLABLE = "apps.accounts.throttling.client_address"

# Content-Security-Policy (django-csp; docs/security.md): this site's own files only; inline
# code only with the response's nonce (the Swagger UI page, templates/drf_spectacular/).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

FORMS_URLFIELD_ASSUME_HTTPS = True

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = env.path("RACKPASS_MEDIA_ROOT", default=str(VAR_DIR / "media"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

REDIS_URL = env("REDIS_URL", default="")


def redis_cache(url: str) -> dict:
    """The cache on Redis, failing open: when Redis is unreachable a read misses and a write is
    dropped (logged) within half a second, so the throttles and every other cache user let the
    request through instead of answering 500 (django-redis IGNORE_EXCEPTIONS)."""
    return {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": url,
        "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
    }


DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
if REDIS_URL:
    CACHES = {"default": redis_cache(REDIS_URL)}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery: Redis when REDIS_URL is set. Without it `make run` (config/settings/local.py) queues
# tasks in files under var/ for the worker it starts beside the web server; the test suite runs
# them eagerly in-process (config/settings/test.py).
CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_STORE_EAGER_RESULT = True
# No task may run longer than 5 minutes (the measured ones take seconds: docs/benchmarks.md);
# a task that sets its own limit stays within it (tests/core/test_background_work.py).
CELERY_TASK_TIME_LIMIT = 5 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 4 * 60 + 30
# A dead broker must not hold a request: connect within 1 s, publish without retrying (the outbox,
# apps/core/tasks_outbox.py, sends what failed later), one quick retry to the result store.
# The visibility timeout redelivers the task of a worker killed outright (OOM, node loss) — its
# message is still unacknowledged (acks_late) — after 3 x the longest time limit: a prefetched
# message may wait for one whole task before its own starts.
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("RACKPASS_BROKER_VISIBILITY_TIMEOUT", default=3 * CELERY_TASK_TIME_LIMIT),
    "socket_connect_timeout": 1,
    "socket_timeout": 5,
}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 1
CELERY_REDIS_SOCKET_TIMEOUT = 5
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 1, "interval_start": 0.2, "interval_step": 0.2, "interval_max": 0.2}
}
CELERY_RESULT_EXPIRES = 7 * 24 * 3600
CELERY_TASK_TRACK_STARTED = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE: dict = {
    # The outbox sweep: tasks whose state change committed while the broker was unreachable.
    "send-owed-tasks": {"task": "core.send_owed_tasks", "schedule": 60.0, "options": {"expires": 55}},
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["apps.accounts.permissions.RolePermission"],
    "DEFAULT_PAGINATION_CLASS": "apps.core.rest.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        # DjangoFilterBackend with id filters limited to what the user sees (apps.core.filters).
        "apps.core.filters.ScopedFilterBackend",
        # `search=` of at most 10 terms of at most 100 characters (apps.core.search).
        "apps.core.search.BoundedSearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "apps.core.schema.AutoSchema",
    "DEFAULT_THROTTLE_CLASSES": ["apps.accounts.throttling.TokenRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "token": env("RACKPASS_API_TOKEN_RATE", default="1200/minute"),
        # Failed token authentications per client address (apps.accounts.throttling).
        "token_failure": env("RACKPASS_API_TOKEN_FAILURE_RATE", default="30/minute"),
    },
    # Proxies in front of the app that append to X-Forwarded-For; 0 trusts REMOTE_ADDR alone, so
    # a client cannot choose the address its sign-in and token failures are counted against.
    "NUM_PROXIES": env.int("RACKPASS_NUM_PROXIES", default=0),
    "EXCEPTION_HANDLER": "apps.core.rest.exception_handler",
    # JSON nested at most 32 levels deep (apps.core.parsers.JSONParser); forms and uploads as DRF's.
    "DEFAULT_PARSER_CLASSES": [
        "apps.core.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Rackpass API",
    "DESCRIPTION": (
        "Partner API of Rackpass: parts, organisations, shipments, compliance and documents. "
        "Authenticate with `Authorization: Token <key>` (tokens are created on the API tokens page)."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Swagger UI's files come from the drf-spectacular-sidecar package: no CDN needed.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No badge from validator.swagger.io: the docs load nothing from elsewhere (CSP) and do not
    # send the schema's address away.
    # Operations grouped by tag (below), collapsed until opened, with a filter box: the page
    # renders the tag headings only, not every operation and model (apps/core/api_docs.py).
    "SWAGGER_UI_SETTINGS": {
        "deepLinking": True,
        "validatorUrl": None,
        "docExpansion": "none",
        "filter": True,
        "defaultModelsExpandDepth": -1,
        "displayRequestDuration": True,
        "persistAuthorization": True,
    },
    # Every operation names one of these (tests/core/test_api_docs.py); the docs show them in this order.
    "TAGS": [
        {"name": "Account", "description": "Who you are (`/me/`) and your API tokens."},
        {
            "name": "Search",
            "description": "One search over what you may see: shipments by reference, PO, AWB / B/L, "
            "container, party or Incoterm place; serials; parts; documents; licences; cluster designs.",
        },
        {
            "name": "Organisations",
            "description": "Suppliers, customers, forwarders and brokers: their registrations (IEC, "
            "GSTIN, EORI …), contacts and signatories, and the connections between them.",
        },
        {"name": "Catalogue", "description": "Parts (GPUs, servers, switches, optics …) and manufacturers."},
        {
            "name": "Sites",
            "description": "Factories, warehouses (bonded or not), ports, airports, data centres.",
        },
        {
            "name": "Shipments",
            "description": "Shipments and their status flow, tracking milestones, importer/exporter of "
            "record, freight options and landed cost.",
        },
        {
            "name": "Lines, packages and legs",
            "description": "What a shipment carries, how it is packed and the legs it travels.",
        },
        {
            "name": "Freight and exchange rates",
            "description": "The operator's rate table per lane and the dated exchange rates of landed costs.",
        },
        {
            "name": "Classification",
            "description": "ECCN classification of parts, licence determination and EAR country groups.",
        },
        {"name": "Licences", "description": "Export licences held and what is left of them."},
        {
            "name": "Stock",
            "description": "Warehouse stock: units (one per serialised box), locations, lots, the movement "
            "ledger, on hand; receiving, moving, counting, allocating, picking and dispatching; bulk "
            "imports of serials.",
        },
        {
            "name": "Screening",
            "description": "Restricted-party screening: list editions, ad hoc screenings, the review "
            "queue of hits and the parties blocked by a confirmed match.",
        },
        {
            "name": "Compliance checks",
            "description": "A shipment's compliance check, its result per line and party, and the "
            "hold reasons to resolve.",
        },
        {
            "name": "Four eyes",
            "description": "Compliance decisions that loosen control (an override that lowers an "
            "export classification's control, confirming a default, releasing a compliance hold, "
            "lifting a block, switching four eyes off or on): one compliance officer asks, a second of "
            "the same organisation approves or rejects; nothing takes effect until then.",
        },
        {
            "name": "Documents",
            "description": "Trade documents (commercial invoice, packing list, end-user statement …): "
            "generate, issue, void, download.",
        },
        {"name": "Tasks", "description": "Progress of background work (checks, document generation)."},
        {
            "name": "Clusters",
            "description": "Cluster designs, their sizing runs (compute, network, storage, power, cooling, "
            "checkpointing) and versioned bills of materials.",
        },
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "CountryEnum": "apps.core.countries.COUNTRY_CHOICES",
        "CurrencyEnum": "apps.core.countries.CURRENCY_CHOICES",
        "ShipmentStatusEnum": "apps.shipments.models.ShipmentStatus",
        "UnitStatusEnum": "apps.catalog.models.UnitStatus",
        "OrganisationKindEnum": "apps.accounts.models.OrganisationKind",
        "SiteKindEnum": "apps.shipments.models.SiteKind",
        "TransportModeEnum": "apps.shipments.models.TransportMode",
        "FreightModeEnum": "apps.shipments.models.freight.FREIGHT_MODE_CHOICES",
        "DocumentTypeEnum": "apps.documents.models.DocumentType",
        "EndUseFlagEnum": "apps.shipments.models.EndUseFlag",
        "ScreeningHitStatusEnum": "apps.compliance.models.HitStatus",
        "ApprovalKindEnum": "apps.compliance.models.ApprovalKind",
        "ApprovalStatusEnum": "apps.compliance.models.ApprovalStatus",
        "ClusterFabricKindEnum": "apps.clusters.models.FabricKind",
        "SizingRunStatusEnum": "apps.clusters.models.RunStatus",
        "BillOfMaterialsStatusEnum": "apps.clusters.models.BomStatus",
    },
}

# Screening: 0.80 is the high-precision threshold public tools use; 0.60 catches more.
RACKPASS_SCREENING_THRESHOLD = env("RACKPASS_SCREENING_THRESHOLD", default="0.80")

# Freight limits (shipments.engines.freight.FreightLimits, in cm and kg): any field overrides the
# default, e.g. {"door_clearance_cm": 5, "lower_deck_max_height_cm": 160}; JSON in the environment.
RACKPASS_FREIGHT_LIMITS = env.json("RACKPASS_FREIGHT_LIMITS", default={})

# Documents whose big tables (of 20 rows or more) have DOCUMENT_PARALLEL_MIN_ROWS rows in all are
# rendered in DOCUMENT_RENDER_PROCESSES pieces by forked processes (apps/documents/renderer.py);
# 1 process turns it off.
DOCUMENT_RENDER_PROCESSES = env.int(
    "DOCUMENT_RENDER_PROCESSES",
    default=min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1),
)
DOCUMENT_PARALLEL_MIN_ROWS = env.int("DOCUMENT_PARALLEL_MIN_ROWS", default=300)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", default="INFO")},
    # WeasyPrint narrates every rendering step at INFO; keep its warnings (e.g. refused fetches).
    "loggers": {
        "weasyprint": {"level": "WARNING"},
        "weasyprint.progress": {"level": "WARNING"},
        "fontTools": {"level": "WARNING"},
    },
}
