"""The Django project: its apps, the middleware stack, templates and static files (docs/architecture.md)."""

import warnings

from config.sections.mode import BASE_DIR, DEBUG

INSTALLED_APPS = [
    "backoffice.site.PanelAdminConfig",  # django.contrib.admin with the back office's dashboard as its index
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # The admin door (docs/security.md): login lockout, and TOTP two-factor for staff.
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "rest_framework",
    "corsheaders",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_structlog",
    "arena",
    "ratings",
    "leaderboards",
    "matchmaking",
    "moderation",
    "seasons",
    "tournaments",
    "doors",  # the top floor's listeners (a tournament round's pushes)
    "backoffice",  # the project-wide admin (docs/architecture.md): on top of every app
]

MIDDLEWARE = [
    "infra.api.metrics.RequestMetricsBefore",  # request metrics (django-prometheus): first and last
    # The request line (docs/observability.md): a client's X-Request-ID kept only if it is a plain token.
    "infra.api.request_log.RequestIdMiddleware",
    "django_structlog.middlewares.RequestMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # CSP and Permissions-Policy on every answer; NUL, too many parameters and oversized forms refused first
    # (infra/http_guard.py, issue 25).
    "infra.http_guard.HttpGuardMiddleware",
    # Serves admin and API-docs assets from the app itself, so gunicorn alone is a complete deployment.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before CommonMiddleware, as django-cors-headers asks: it answers preflights and marks the public reads.
    "corsheaders.middleware.CorsMiddleware",
    "infra.api.abuse.FailedAuthMiddleware",  # 401s counted per client network, 429 past API_FAILED_AUTH_RATE
    "infra.api.ratelimit.RateLimitHeadersMiddleware",  # RateLimit-Policy / RateLimit where a throttle counted
    # The admin's layers (session, login, TOTP, messages) run under /admin/ only; everywhere else they pass through
    # (infra/api/admin_layers.py: Django's and django-otp's own classes; docs/testing.md, the request path). CSRF
    # stays Django's own, by name, as `check --deploy` asks (security.W003); on DRF's exempt views it is a no-op.
    "infra.api.admin_layers.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "infra.api.admin_layers.AuthenticationMiddleware",
    "infra.api.admin_layers.OTPMiddleware",  # request.user.is_verified(): logged in with a TOTP code
    "infra.api.admin_layers.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A lost database connection outside DRF is a 503 page, not a 500 (docs/observability.md).
    "infra.api.errors.DatabaseUnavailableMiddleware",
    "infra.api.metrics.RequestMetricsAfter",
    # A chunked API body left unread until the view's parser asks, under its own cap (docs/security.md); after the
    # metrics, which would count the most it may read as the body's size.
    "infra.api.limits.ChunkedBodyMiddleware",
    # Last, as django-axes asks: turns a locked-out login's answer into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
# Messages live in the server-side session, never in a cookie: the admin shows one-time API keys in them.
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"
WSGI_APPLICATION = "config.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
# Without DEBUG, run "manage.py collectstatic" (it creates STATIC_ROOT); with it, whitenoise serves the apps'
# folders, and its warning about the absent STATIC_ROOT (settings create no directory) says nothing.
WHITENOISE_USE_FINDERS = True
if DEBUG:
    warnings.filterwarnings("ignore", message=f"No directory at: {STATIC_ROOT}")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
