"""Error pages: JSON under /api/ (what every API client parses), the usual pages elsewhere.

DRF answers the errors its views raise; these answer the rest — an unknown /api/ address, a body
refused before a view ran, a server error — so an API client never receives an HTML page. They
never show details of the error: production runs with DEBUG off (config.settings.production)."""

from __future__ import annotations

from django.http import JsonResponse
from django.views import defaults


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def bad_request(request, exception=None):
    if _is_api(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request, exception=None):
    if _is_api(request):
        return JsonResponse({"detail": "You do not have permission to perform this action."}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request, exception=None):
    if _is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    if _is_api(request):
        return JsonResponse(
            {"detail": "Server error: nothing was saved. Try again; if it persists, tell us the time."},
            status=500,
        )
    return defaults.server_error(request)
