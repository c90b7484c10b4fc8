"""Content-Security-Policy: on pages, the API docs and API responses; no inline code without a nonce."""

import re

import pytest

POLICY = "Content-Security-Policy"


def _directives(response) -> dict[str, list[str]]:
    header = response[POLICY]
    return {name: values for name, *values in (part.split() for part in header.split(";") if part.strip())}


def _nonce(directives, name) -> str | None:
    for value in directives.get(name, []):
        if value.startswith("'nonce-"):
            return value[len("'nonce-") : -1]
    return None


@pytest.fixture
def signed_in(coordinator, browser_as):
    return browser_as(coordinator)


def test_pages_carry_a_strict_policy(signed_in):
    response = signed_in.get("/parts/")
    assert response.status_code == 200
    directives = _directives(response)
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"][0] == "'self'" and "'unsafe-inline'" not in directives["script-src"]
    assert "'unsafe-eval'" not in directives["script-src"]
    assert "'unsafe-inline'" not in directives["style-src"]
    assert directives["object-src"] == ["'none'"]
    assert directives["base-uri"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["form-action"] == ["'self'"]


def test_the_login_page_and_errors_carry_it_too(client, db):
    assert POLICY in client.get("/login/")
    assert POLICY in client.get("/no-such-page/")


def test_the_pages_have_no_inline_script_style_or_handlers(signed_in):
    html = signed_in.get("/parts/").content.decode()
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert "<style" not in html
    assert not re.search(r"\son[a-z]+=", html)
    assert not re.search(r"\sstyle=", html)
    # htmx would add its indicator <style> at run time: the page turns that off.
    assert '"includeIndicatorStyles": false' in html


def test_the_api_answers_carry_the_policy(coordinator, api_as):
    response = api_as(coordinator).get("/api/v1/parts/")
    assert response.status_code == 200 and POLICY in response


def test_the_api_docs_run_only_nonced_or_own_scripts(signed_in):
    response = signed_in.get("/api/docs/")
    assert response.status_code == 200
    directives = _directives(response)
    nonce = _nonce(directives, "script-src")
    html = response.content.decode()
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag or f'nonce="{nonce}"' in tag, tag
    for tag in re.findall(r"<style\b[^>]*>", html):
        assert nonce and f'nonce="{nonce}"' in tag, tag
    assert _nonce(directives, "style-src") == nonce


def test_a_nonce_is_fresh_for_every_response(signed_in):
    first = _nonce(_directives(signed_in.get("/api/docs/")), "script-src")
    second = _nonce(_directives(signed_in.get("/api/docs/")), "script-src")
    assert first and second and first != second
