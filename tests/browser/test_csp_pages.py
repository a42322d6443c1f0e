"""Issue 25 §2: under the Content-Security-Policy every page carries (infra/http_guard.py), Swagger UI and the
admin still work in Chromium, and the browser reports no violation (an inline script it refused would be one)."""

from __future__ import annotations

from playwright.sync_api import expect


def _violations(page) -> list[str]:
    seen: list[str] = []
    page.on("console", lambda message: seen.append(message.text) if "Content Security Policy" in message.text else None)
    return seen


def test_swagger_ui_renders_under_the_policy(page, transactional_db):
    violations = _violations(page)
    response = page.goto("/api/docs/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Arena API")
    expect(page.locator(".opblock").first).to_be_visible()
    assert violations == []


def test_the_admin_login_and_dashboard_render_under_the_policy(page, live_server, superuser, admin_login):
    violations = _violations(page)
    admin_login(page, live_server, superuser)
    expect(page.locator("#site-name")).to_contain_text("Arena moderation")
    assert violations == []
