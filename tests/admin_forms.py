"""Fill in a Django admin page as a person would: read the form as the page shows it (inputs,
checked boxes, selected options, text areas, the inline formsets' management fields), change
some fields, and post it. Tests that an admin door goes through the services use it."""

from __future__ import annotations

import re
from html.parser import HTMLParser


class _Form(HTMLParser):
    def __init__(self):
        super().__init__()
        self.values: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button", "file"):
            if a.get("type") in ("checkbox", "radio"):
                if "checked" in a:
                    self.values[name] = a.get("value", "on")
            else:
                self.values[name] = a.get("value", "")
        elif tag == "select" and name:
            self._select = name
            self.values.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.values[self._select] = a.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.values[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.values[self._textarea] += data


def admin_form(client, url: str) -> dict[str, str]:
    """The form on the admin page at `url` as it is shown (without the CSRF token)."""
    page = client.get(url)
    assert page.status_code == 200, (url, page.status_code)
    parser = _Form()
    parser.feed(page.content.decode())
    parser.values.pop("csrfmiddlewaretoken", None)
    return parser.values


def admin_save(client, url: str, **changes) -> None:
    """Post the admin form at `url` with `changes`; asserts it was saved (a redirect)."""
    form = {**admin_form(client, url), **changes, "_save": "Save"}
    answer = client.post(url, form)
    assert answer.status_code == 302, form_errors(answer)


def form_errors(answer) -> list[str]:
    """The error lists an admin page shows (what a failed post said)."""
    html = answer.content.decode()
    return [
        re.sub(r"<[^>]+>", " ", e).strip()
        for e in re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', html, re.S)
    ] or [html[:500]]
