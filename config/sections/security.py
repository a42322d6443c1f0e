"""HTTPS, the admin door, secrets' rotation, CORS and the size of non-API bodies (docs/security.md).

On by default in production (``DEBUG`` unset, config/sections/mode.py), so that
``manage.py check --deploy --fail-level WARNING`` is silent with only the mode's variables set.
"""

from datetime import timedelta

from config.sections.mode import DEBUG, env, refuse

# =============================================================================
# HTTPS and the proxy in front (docs/security.md). On by default in production, so that
# `manage.py check --deploy --fail-level WARNING` is silent with only the four variables above set.
# =============================================================================
# "X-Forwarded-Proto,https": the header (as sent, or in Django's HTTP_X_FORWARDED_PROTO form) and the value the
# TLS-terminating proxy sets on HTTPS requests. Only when the proxy always sets or strips it.
_proxy_ssl_header = env.list("SECURE_PROXY_SSL_HEADER", default=[])
if _proxy_ssl_header:
    if len(_proxy_ssl_header) != 2:
        refuse("SECURE_PROXY_SSL_HEADER", "must be HEADER,VALUE (for example X-Forwarded-Proto,https)")
    _header = _proxy_ssl_header[0].strip().upper().replace("-", "_")
    SECURE_PROXY_SSL_HEADER = (
        _header if _header.startswith("HTTP_") else f"HTTP_{_header}",
        _proxy_ssl_header[1].strip(),
    )
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# false behind a proxy that terminates TLS and speaks plain HTTP to Arena (it redirects to https itself).
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
# Probes inside the network call these over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz/?$", r"^readyz/?$"]
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
# How many reverse proxies stand in front: 0 trusts REMOTE_ADDR only, so a forged X-Forwarded-For cannot buy a
# client a fresh throttle allowance. Read by DRF (REST_FRAMEWORK below) to find the client's address.
NUM_PROXIES = env.int("NUM_PROXIES", default=0)
# Rotating SECRET_KEY (docs/operations.md): the old key listed here keeps signed sessions and tokens valid until
# they expire, so moderators are not all logged out at once. https://docs.djangoproject.com/en/5.2/ref/settings/
SECRET_KEY_FALLBACKS = env.list("SECRET_KEY_FALLBACKS", default=[])
# Issue 25 §1.9: every non-API body (the admin's forms; the API's have the caps above) is refused over 256 KiB by
# its declared length before it is read (infra/http_guard.py), and Django refuses more fields than the largest
# admin form sends (an action on a full change-list page: 100 rows and a few controls).
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000

# =============================================================================
# The admin door (docs/security.md): lockout, passwords, two-factor, sessions
# =============================================================================
# django-axes first: a locked username is refused before its password is even checked.
AUTHENTICATION_BACKENDS = ["backoffice.admin_door.LockoutBackend", "django.contrib.auth.backends.ModelBackend"]
# Issue 25 §1.2: a username is locked *from one address* (10 failures), and an address is locked after 10
# failures whatever the usernames (the rate limit by address): someone elsewhere can no longer lock a moderator
# out. The "address" axes stores is a keyed pseudonym in fd00::/8, never the address (admin_door.client_pseudonym;
# docs/moderation.md keeps raw addresses out of the database). Failures during a lock are not counted, so a lock
# is never extended: it lifts an hour after the failure that set it, or at once by a superuser's "Unlock" action
# (Users, or Axes -> Access attempts); `manage.py axes_reset` remains for the worst case.
AXES_FAILURE_LIMIT = 10
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_CLIENT_IP_CALLABLE = "backoffice.admin_door.client_pseudonym"
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# What axes writes into its varchar(255) username column: the typed name cut to 150 (issue 25 §1.4).
AXES_USERNAME_CALLABLE = "backoffice.admin_door.bounded_username"
AXES_COOLOFF_TIME = timedelta(hours=1)
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
AXES_LOCKOUT_CALLABLE = "backoffice.admin_door.lockout_response"  # a page in the admin's look
AXES_ENABLE_ACCESS_FAILURE_LOG = False
# Every account, moderators and superusers alike: Django's four validators, at least 12 characters.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Staff log in with a TOTP code (django-otp) in production; optional in development, where a code given is still
# checked. Without a confirmed authenticator a staff account reaches no panel page (backoffice/site.py).
ADMIN_REQUIRE_OTP = env.bool("ADMIN_REQUIRE_OTP", default=not DEBUG)
OTP_TOTP_ISSUER = "Arena"
# Sessions are the admin's only (the API authenticates by key): they end after 8 idle hours (every request
# renews the expiry) and at a password change (Django checks the session's password hash on every request).
SESSION_COOKIE_AGE = 8 * 3600
SESSION_SAVE_EVERY_REQUEST = True
# An unsafe or missing ?next= after the login lands on the admin's index, not on Django's /accounts/profile/ 404.
LOGIN_REDIRECT_URL = "/admin/"


# =============================================================================
# CORS: the site's own web pages may call the public reads from the browser (issue 19 #9)
# =============================================================================
# None by default. Only the public reads (player pages, their history, leaderboards): the regex stops short of
# /players/<p>/preferences/ and every other key-authenticated endpoint, which no browser page should call with a
# server's key. GET only, no cookies.
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_URLS_REGEX = r"^/api/v1/(players/[^/]+/(history/[^/]+/)?|leaderboards/[^/]+/)$"
CORS_ALLOW_METHODS = ("GET", "HEAD", "OPTIONS")
CORS_ALLOW_CREDENTIALS = False
CORS_EXPOSE_HEADERS = ("ETag", "Retry-After")
