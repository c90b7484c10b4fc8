"""A write request and its response are one transaction."""

from __future__ import annotations

from django.db import transaction

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


class AtomicWriteMiddleware:
    """Run every POST, PUT, PATCH and DELETE — API, browser and admin alike — in one transaction
    that commits only when the response is a success or a refusal the view chose to answer.

    It rolls back when the response is a server error (an exception anywhere after the first
    write: in the view, in serialising a computed figure, in rendering) and when DRF answered an
    exception it handled (a 400/404/409 from a ValidationError, Http404 …, marked `exception`),
    as Django's ATOMIC_REQUESTS and DRF do together — but around the whole response, rendering
    included, and not around reads: a GET keeps autocommit, holds no transaction while a long
    list is read and adds no SAVEPOINT to the queries a page costs. Reads do not write (the
    token's last-use time is bookkeeping that may stand alone).

    Tasks queued with `transaction.on_commit` leave after this commit, so a rolled-back request
    queues nothing.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method in SAFE_METHODS:
            return self.get_response(request)
        with transaction.atomic():
            response = self.get_response(request)
            if response.status_code >= 500 or getattr(response, "exception", False):
                transaction.set_rollback(True)
            return response
