"""Error pages: JSON under /api/ (what every API client parses), the usual pages elsewhere.

DRF answers the errors its views raise; these answer the rest — an unknown /api/ address, a body
refused before a view ran, a server error — so an API client never receives an HTML page. They
never show details of the error: production runs with DEBUG off (config.settings.production)."""

from __future__ import annotations

from http import HTTPStatus

from django.http import JsonResponse
from django.views import defaults

MESSAGES = {
    400: "Bad request.",
    403: "You do not have permission to perform this action.",
    404: "Not found.",
    500: "Server error: nothing was saved. Try again; if it persists, tell us the time.",
}
# Headers of an HTML error answer that still hold for its JSON replacement.
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate", "Vary")


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def _json_error(status: int) -> JsonResponse:
    message = MESSAGES.get(status)
    if message is None:
        try:
            message = f"{HTTPStatus(status).phrase}."
        except ValueError:
            message = "Error."
    return JsonResponse({"detail": message}, status=status)


class ApiJsonErrorsMiddleware:
    """Any error under /api/ answered as a page (not JSON) is answered as JSON instead.

    The handlers below answer only when DEBUG is off: with DEBUG on (`make run`), Django answers
    an address no route matches (a word where an `<int:pk>` goes) with its technical 404 page,
    which lists every URL pattern, and a server error with its traceback page. Placed outside
    CommonMiddleware, so a missing slash still redirects. The traceback is still logged."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and _is_api(request)
            and not response.get("Content-Type", "").startswith(
                ("application/json", "application/problem+json")
            )
        ):
            replacement = _json_error(response.status_code)
            for header in KEPT_HEADERS:
                if header in response:
                    replacement[header] = response[header]
            return replacement
        return response


def bad_request(request, exception=None):
    if _is_api(request):
        return _json_error(400)
    return defaults.bad_request(request, exception)


def permission_denied(request, exception=None):
    if _is_api(request):
        return _json_error(403)
    return defaults.permission_denied(request, exception)


def page_not_found(request, exception=None):
    if _is_api(request):
        return _json_error(404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    if _is_api(request):
        return _json_error(500)
    return defaults.server_error(request)
