"""Template helpers of the task progress box (templates/compliance/_task_progress.html)."""

import re

from django import template

register = template.Library()

_ID = re.compile(r"[A-Za-z][\w-]{0,60}")


@register.filter
def refresh_selector(ids: str) -> str:
    """`?refresh=documents,check` from the page that shows the box → "#documents,#check": the
    parts of that page to load again when the task ends. Anything but plain ids is dropped."""
    parts = [part.strip() for part in (ids or "").split(",")[:5]]
    return ",".join(f"#{part}" for part in parts if _ID.fullmatch(part))
