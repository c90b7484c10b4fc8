from django.db import connection
from django.http import JsonResponse


def health(request):
    """Liveness for the container health check: the app answers and the database responds."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
