"""Moving a shipment through its statuses from the page, and amending an approved one."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.utils import timezone
from django.views import View

from apps.core.access import CapabilityRequiredMixin
from apps.core.models import TaskRecord
from apps.core.scoping import CHANGE
from apps.core.tasks_outbox import owed_messages

from .. import hooks, readiness, selectors, services
from ..engines import workflow
from ..forms import AmendForm, TransitionForm
from ..models import ShipmentStatus
from .detail import get_shipment


class TransitionView(CapabilityRequiredMixin, View):
    capability = "shipments.view"

    def post(self, request, reference):
        shipment = get_shipment(request, reference, CHANGE)
        form = TransitionForm(request.POST)
        if not form.is_valid():
            raise Http404
        started = timezone.now()
        try:
            shipment = services.shipment_transition(
                shipment=shipment,
                target=form.cleaned_data["to"],
                actor=request.user,
                reason=form.cleaned_data["reason"],
                hold_kind=form.cleaned_data["hold_kind"],
            )
        except services.TransitionForbidden as exc:
            raise PermissionDenied(exc.message) from exc  # the styled 403 page, as any page's
        except services.TransitionRefused as exc:
            # Back to the shipment's page with why (post, redirect, get): reloading it shows the
            # page, it does not post the refused move again.
            messages.error(request, exc.message, extra_tags="transition-refused")
            for why in exc.reasons or []:
                messages.error(request, why, extra_tags="transition-refused")
            return HttpResponseRedirect(shipment.get_absolute_url())

        def after_commit():
            # The status once the request's transaction committed and the work it queued on commit
            # ran (an eager compliance check approves or holds the shipment then): one truth.
            messages.success(request, f"{shipment} is now {selectors.status_now(shipment).label.lower()}.")
            # After the commit, when the tasks the change queued were handed to the broker (the
            # outbox sends them in an earlier on-commit callback): say which could not be.
            for message in owed_messages(shipment.reference):
                messages.warning(request, message)

        transaction.on_commit(after_commit)
        url = shipment.get_absolute_url()
        if form.cleaned_data["to"] == ShipmentStatus.COMPLIANCE_REVIEW:
            # Review goes ahead; what the documents will still need is said now, not at generation.
            for warning in readiness.review_warnings(shipment):
                messages.warning(request, warning)
            # Entering review started the compliance check: the page shows its progress.
            task = (
                TaskRecord.objects.filter(
                    object_repr=shipment.reference, kind="compliance check", created_at__gte=started
                )
                .order_by("-created_at", "-pk")
                .values_list("task_id", flat=True)
                .first()
            )
            if task:
                url += f"?task={task}"
        return HttpResponseRedirect(url)


class AmendView(CapabilityRequiredMixin, View):
    """Amend an approved shipment that is not booked: a confirmation page saying what will be voided
    and asking why, then `services.shipment_amend`."""

    capability = "shipments.amend"

    def get(self, request, reference):
        return self._page(request, get_shipment(request, reference, CHANGE), AmendForm())

    def post(self, request, reference):
        shipment = get_shipment(request, reference, CHANGE)
        form = AmendForm(request.POST)
        if not form.is_valid():
            return self._page(request, shipment, form, status=400)
        try:
            shipment = services.shipment_amend(
                shipment=shipment, actor=request.user, reason=form.cleaned_data["reason"]
            )
        except services.TransitionForbidden as exc:
            raise PermissionDenied(exc.message) from exc
        except services.TransitionRefused as exc:
            # As a refused move: back to the shipment's page with why, no post to repeat on reload.
            messages.error(request, exc.message, extra_tags="transition-refused")
            for why in exc.reasons or []:
                messages.error(request, why, extra_tags="transition-refused")
            return HttpResponseRedirect(shipment.get_absolute_url())
        messages.success(
            request,
            f"{shipment} is a draft again: correct it, then submit it for compliance review (the check "
            "runs again).",
        )
        return HttpResponseRedirect(shipment.get_absolute_url())

    def _page(self, request, shipment, form, *, status=200, errors=None):
        problems = workflow.amend_problems(
            workflow.Status(shipment.status),
            held_from=workflow.Status(shipment.held_from) if shipment.held_from else None,
        )
        context = {
            "shipment": shipment,
            "form": form,
            "problems": problems,
            "effects": hooks.amend_effects(shipment) if not problems else [],
            "errors": errors,
        }
        return render(request, "shipments/shipment_amend.html", context, status=status)
