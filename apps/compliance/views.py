"""Compliance officers' pages: review queue, shipment compliance, classification, licences, lists."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, F, Prefetch, Q
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from apps.catalog.models import Part
from apps.core import exports
from apps.core.access import CapabilityRequiredMixin
from apps.core.disclosure import person_label
from apps.core.scoping import CHANGE
from apps.core.views import FilteredListMixin, add_service_errors, safe_next
from apps.shipments.models import Shipment, ShipmentStatus

from . import disclosure, services
from .api.views import task_status, visible_licence_ids
from .engines.countries import chart_marks_for, groups_of
from .filters import LicenceFilter
from .forms import AdHocScreenForm, DecisionForm, LicenceForm, ListImportForm, OverrideForm, ResolveForm
from .models import (
    ApprovalKind,
    ApprovalStatus,
    CheckLineResult,
    ComplianceAlert,
    ComplianceApproval,
    HitStatus,
    HoldKind,
    HoldReason,
    Licence,
    PartClassification,
    PartyBlock,
    ScreeningHit,
    ScreeningList,
)
from .services.holds import NOTE_KINDS, UNRESOLVABLE


class ReviewQueueView(CapabilityRequiredMixin, TemplateView):
    capability = "compliance.review"
    template_name = "compliance/queue.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        # Organisations' open hits, once per organisation and listed entry (never ad hoc ones),
        # with the shipments under way that name the organisation.
        context["hits"] = services.attach_shipments(
            list(services.review_queue().order_by("-score", "id")[:200])
        )
        context["holds"] = list(
            HoldReason.objects.filter(resolved_at__isnull=True)
            .select_related("compliance_check__shipment")
            .order_by("id")[:200]
        )
        context["shipments"] = list(
            Shipment.objects.filter(
                Q(status=ShipmentStatus.COMPLIANCE_REVIEW)
                | Q(status=ShipmentStatus.ON_HOLD, hold_kind="compliance")
            )
            .select_related("origin", "destination")
            .order_by("required_by")
        )
        # Blocks in force; those with a lift request waiting for a second officer first.
        context["blocks"] = list(
            PartyBlock.objects.filter(lifted_at__isnull=True)
            .select_related("organisation", "lift_requested_by")
            .order_by(F("lift_requested_at").desc(nulls_last=True), "-created_at")[:200]
        )
        context["decision_form"] = DecisionForm()
        context["alerts"], context["can_review"] = list(services.open_alerts()[:100]), True
        # Four-eyes requests awaiting a second officer, oldest first: every decision that loosens
        # control, with the buttons for an officer who did not ask.
        context["approvals"] = list(
            _approvals().filter(status=ApprovalStatus.PENDING).order_by("requested_at")[:200]
        )
        context["can_decide"] = self.request.user.can("compliance.decide")
        return context


def _approvals():
    return ComplianceApproval.objects.select_related(
        "requested_by",
        "decided_by",
        "part__manufacturer",
        "shipment",
        "block__organisation",
        "hit__entry",
        "hit__organisation",
    )


class ApprovalDecideView(CapabilityRequiredMixin, View):
    """Approve, reject or withdraw a four-eyes request (compliance officers of its organisation)."""

    capability = "compliance.decide"
    done = {
        "approve": "Approved: the decision takes effect.",
        "reject": "Rejected: nothing changes.",
        "withdraw": "Request withdrawn: nothing changes.",
    }

    def post(self, request, pk):
        approval = get_object_or_404(ComplianceApproval.objects.visible_to(request.user, CHANGE), pk=pk)
        action = request.POST.get("action", "")
        try:
            if action == "approve":
                services.approval_approve(approval=approval, actor=request.user)
            elif action == "reject":
                services.approval_reject(
                    approval=approval, actor=request.user, reason=request.POST.get("reason", "")
                )
            elif action == "withdraw":
                services.approval_withdraw(approval=approval, actor=request.user)
            else:
                raise ValidationError("Choose to approve, reject or withdraw the request.")
            messages.success(request, self.done[action])
        except (ValidationError, PermissionDenied) as exc:
            messages.error(request, " ".join(getattr(exc, "messages", None) or [str(exc)]))
        return HttpResponseRedirect(safe_next(request, reverse("compliance:queue") + "#approvals"))


class FourEyesView(CapabilityRequiredMixin, View):
    """The organisation's four-eyes policy: where it stands, who changed it, and the request to
    change it (two compliance officers: one asks here, another approves)."""

    capability = "compliance.review"

    def get(self, request, status=200):
        organisation = request.user.organisation
        policy = services.four_eyes_policy(organisation) if organisation is not None else None
        approvals = (
            list(_approvals().filter(kind=ApprovalKind.POLICY_CHANGE, organisation=organisation)[:20])
            if organisation is not None
            else []
        )
        return render(
            request,
            "compliance/four_eyes.html",
            {
                "policy": policy,
                "approvals": approvals,
                "pending": any(a.is_pending for a in approvals),
                "can_decide": request.user.can("compliance.decide"),
            },
            status=status,
        )

    def post(self, request):
        if not request.user.can("compliance.decide"):
            return render(request, "403.html", status=403)
        try:
            services.four_eyes_policy_request(
                organisation=request.user.organisation,
                actor=request.user,
                on=request.POST.get("four_eyes") == "on",
                reason=request.POST.get("reason", ""),
            )
            messages.success(request, "Asked: a second compliance officer approves the change.")
        except (ValidationError, PermissionDenied) as exc:
            messages.error(request, " ".join(getattr(exc, "messages", None) or [str(exc)]))
            return self.get(request, status=400)
        return HttpResponseRedirect(reverse("compliance:four-eyes"))


class HitDecisionView(CapabilityRequiredMixin, View):
    capability = "compliance.review"

    def post(self, request, pk):
        # Ad hoc screenings' hits are not reviewed: only organisations' hits are found here.
        hit = get_object_or_404(ScreeningHit.objects.filter(organisation__isnull=False), pk=pk)
        form = DecisionForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Choose clear or confirm and give a reason.")
        else:
            action = services.hit_clear if form.cleaned_data["decision"] == "clear" else services.hit_confirm
            try:
                decided = action(hit=hit, actor=request.user, reason=form.cleaned_data["reason"])
                if decided.status == HitStatus.OPEN:
                    messages.success(
                        request,
                        f"Clearing the hit on {hit.entry.name} asked: a second compliance officer "
                        "approves it (four eyes); the shipments stay held until then.",
                    )
                else:
                    messages.success(request, f"Hit on {hit.entry.name} {form.cleaned_data['decision']}ed.")
            except ValidationError as exc:
                messages.error(request, " ".join(exc.messages))
            except PermissionDenied as exc:
                messages.error(request, str(exc))
        return HttpResponseRedirect(safe_next(request, reverse("compliance:queue")))


class BlockLiftView(CapabilityRequiredMixin, View):
    """Request, approve, or withdraw/refuse lifting a block (reversing the confirmed match)."""

    capability = "compliance.decide"
    actions = {
        "request": ("Lift requested; a second compliance officer approves it.", "Block lifted."),
        "approve": ("Block lifted: the match is reversed.", None),
        "withdraw": ("Lift request withdrawn; the block stays.", None),
    }

    def post(self, request, pk):
        block = get_object_or_404(PartyBlock, pk=pk)
        action = request.POST.get("action", "")
        reason = request.POST.get("reason", "")
        if action not in self.actions:
            messages.error(request, "Choose to request, approve or withdraw a lift.")
        else:
            try:
                if action == "request":
                    block = services.block_lift_request(block=block, actor=request.user, reason=reason)
                elif action == "approve":
                    block = services.block_lift_approve(block=block, actor=request.user)
                else:
                    block = services.block_lift_withdraw(block=block, actor=request.user, reason=reason)
                pending, lifted = self.actions[action]
                messages.success(request, lifted if (lifted and not block.is_active) else pending)
            except (ValidationError, PermissionDenied) as exc:
                messages.error(request, " ".join(getattr(exc, "messages", None) or [str(exc)]))
        return HttpResponseRedirect(safe_next(request, block.organisation.get_absolute_url()))


def _shipment(request, reference, action="view"):
    return get_object_or_404(
        Shipment.objects.select_related("origin", "destination").visible_to(request.user, action),
        reference=reference,
    )


class ShipmentComplianceView(CapabilityRequiredMixin, View):
    capability = "compliance.view"

    def get(self, request, reference):
        shipment = _shipment(request, reference)
        checks = list(
            shipment.compliance_checks.prefetch_related(
                Prefetch(
                    "line_results", queryset=CheckLineResult.objects.select_related("line__part", "licence")
                ),
                "party_results__organisation",
                "hold_reasons__resolved_by",
            ).order_by("-finished_at", "-id")[:10]
        )
        visible = visible_licence_ids(request.user)
        for check in checks[:1]:
            # Partners read the same result with other organisations' licences left out.
            for reason in check.hold_reasons.all():
                hidden = (
                    visible is not None and reason.licence_id is not None and reason.licence_id not in visible
                )
                reason.display_text = (
                    "A licence is required for this line; the exporter's licence does not cover it."
                    if hidden and reason.kind == HoldKind.LICENCE
                    else disclosure.hold_text(reason, request.user) or reason.text
                )
                shown = disclosure.hold_resolution(reason, request.user)
                reason.display_resolution = (
                    "Covered by a licence held by the exporter."
                    if hidden
                    else (reason.resolution if shown is None else shown)
                )
                reason.resolved_by_label = person_label(reason.resolved_by, request.user)
                reason.free_text = reason.kind in NOTE_KINDS or reason.kind == HoldKind.UNCONFIRMED
                reason.how = UNRESOLVABLE.get(reason.kind, "")
            for result in check.line_results.all():
                result.licence_shown = result.licence_id is not None and (
                    visible is None or result.licence_id in visible
                )
            pending = (
                {
                    a.hold_reason_id: a
                    for a in ComplianceApproval.objects.filter(
                        status=ApprovalStatus.PENDING, hold_reason__compliance_check=check
                    ).select_related("requested_by")
                }
                if request.user.can("compliance.review")
                else {}
            )
            for reason in check.hold_reasons.all():
                reason.pending_approval = pending.get(reason.pk)
            # A partner reads its own party result, without the screening's reasoning.
            check.shown_party_results = disclosure.party_results_for(check.party_results.all(), request.user)
            for result in check.shown_party_results:
                result.display_reasons = [] if disclosure.is_partner(request.user) else result.reasons
        return render(
            request,
            "compliance/shipment.html",
            {
                "shipment": shipment,
                "check": checks[0] if checks else None,
                # The same test as approval, booking and the documents' DRAFT mark: is the latest
                # check one of the shipment as it is now (one true status)?
                "check_outdated": bool(checks)
                and checks[0].shipment_version != services.shipment_fingerprint(shipment),
                "older_checks": checks[1:],
                "resolve_form": ResolveForm(),
                "task_id": request.GET.get("task", ""),
                "can_run": request.user.can("compliance.run"),
                "can_review": request.user.can("compliance.review"),
                # Alerts name list entries and decisions: the operator's staff read them.
                "alerts": []
                if disclosure.is_partner(request.user)
                else list(shipment.compliance_alerts.select_related("shipment", "acknowledged_by")),
                **_four_eyes_context(request, shipment),
            },
        )


def _four_eyes_context(request, shipment: Shipment) -> dict:
    """The shipment's four-eyes requests (hold release, default confirmations) for the operator's
    staff, and whether the user may ask to release its compliance hold."""
    user = request.user
    if not user.can("compliance.review"):
        return {}
    approvals = list(
        _approvals()
        .filter(Q(shipment=shipment) | Q(hold_reason__compliance_check__shipment=shipment))
        .order_by("-requested_at")[:10]
    )
    held = shipment.status == ShipmentStatus.ON_HOLD and shipment.hold_kind == "compliance"
    waiting = any(a.is_pending and a.kind == ApprovalKind.HOLD_RELEASE for a in approvals)
    organisation = user.organisation
    return {
        "approvals": approvals,
        "can_decide": user.can("compliance.decide"),
        "can_release": held and not waiting and user.can("shipments.release_compliance_hold"),
        "four_eyes_on": organisation is None or organisation.compliance_four_eyes,
    }


def shipment_page_actions(shipment, user) -> list[tuple[str, str]]:
    """`shipments.hooks.register_page_action`: a compliance hold is released on the compliance page."""
    if shipment.status != ShipmentStatus.ON_HOLD or shipment.hold_kind != "compliance":
        return []
    if not user.can("shipments.release_compliance_hold"):
        return []
    return [
        (
            "Release compliance hold (four eyes)",
            reverse("compliance:shipment", args=[shipment.reference]) + "#release",
        )
    ]


class HoldReleaseRequestView(CapabilityRequiredMixin, View):
    """Ask to release a shipment's compliance hold (four eyes: a second officer approves it)."""

    capability = "shipments.release_compliance_hold"

    def post(self, request, reference):
        shipment = _shipment(request, reference, CHANGE)
        try:
            approval = services.compliance_hold_release_request(
                shipment=shipment, actor=request.user, reason=request.POST.get("reason", "")
            )
            messages.success(
                request,
                "Awaiting second officer: the shipment stays held until another compliance officer approves."
                if approval.is_pending
                else "Compliance hold released (four eyes is off).",
            )
        except (ValidationError, PermissionDenied) as exc:
            messages.error(request, " ".join(getattr(exc, "messages", None) or [str(exc)]))
        return HttpResponseRedirect(reverse("compliance:shipment", args=[shipment.reference]) + "#four-eyes")


class RunCheckView(CapabilityRequiredMixin, View):
    capability = "compliance.run"

    def post(self, request, reference):
        shipment = _shipment(request, reference, CHANGE)
        task_id = services.compliance_check_start(shipment=shipment, actor=request.user)
        return HttpResponseRedirect(
            reverse("compliance:shipment", args=[shipment.reference]) + f"?task={task_id}"
        )


class TaskProgressView(CapabilityRequiredMixin, View):
    """An htmx fragment that polls itself until the task is done."""

    capability = "tasks.view"

    def get(self, request, task_id):
        return render(request, "compliance/_task_progress.html", {"task": task_status(request.user, task_id)})


class ResolveHoldView(CapabilityRequiredMixin, View):
    capability = "compliance.review"

    def post(self, request, pk):
        hold = get_object_or_404(HoldReason.objects.select_related("compliance_check__shipment"), pk=pk)
        form = ResolveForm(request.POST)
        shipment = hold.compliance_check.shipment
        if form.is_valid():
            try:
                hold = services.hold_reason_resolve(
                    hold=hold,
                    actor=request.user,
                    resolution=form.cleaned_data["resolution"],
                    licence_number=form.cleaned_data["licence_number"],
                )
                if hold.resolved_at is None:
                    messages.warning(
                        request,
                        "Awaiting second officer: the default classification is confirmed, and the reason "
                        "resolved, when another compliance officer approves.",
                    )
                else:
                    messages.success(request, "Hold reason resolved.")
            except (ValidationError, PermissionDenied) as exc:
                messages.error(request, " ".join(getattr(exc, "messages", None) or [str(exc)]))
        else:
            messages.error(request, "Say how the reason was resolved.")
        return HttpResponseRedirect(reverse("compliance:shipment", args=[shipment.reference]))


class PartClassificationView(CapabilityRequiredMixin, View):
    capability = "compliance.view"
    template_name = "compliance/part_classification.html"

    def _part(self, request, pk):
        return get_object_or_404(Part.objects.visible_to(request.user).select_related("manufacturer"), pk=pk)

    def get(self, request, pk, form=None, status=200):
        part = self._part(request, pk)
        history = list(
            PartClassification.objects.filter(part=part).select_related("created_by__organisation")
        )
        for row in history:  # a partner reads "Rackpass staff" for the operator's officers
            row.created_by_label = person_label(row.created_by, request.user)
        # Four-eyes requests about this part, for the operator's staff (the officers' words).
        approvals = list(_approvals().filter(part=part)[:10]) if request.user.can("compliance.review") else []
        return render(
            request,
            self.template_name,
            {
                "part": part,
                "current": next((c for c in history if c.is_current), None),
                "history": history,
                "form": form or OverrideForm(),
                "can_review": request.user.can("compliance.decide"),
                "can_decide": request.user.can("compliance.decide"),
                "approvals": approvals,
                "certifications": list(part.certifications.all()),
            },
            status=status,
        )

    def post(self, request, pk):
        part = self._part(request, pk)
        if request.POST.get("action") == "run":
            if not request.user.can("compliance.run"):
                return render(request, "403.html", status=403)
            row = services.part_classify(part=part, actor=request.user)
            messages.success(request, f"Engine result: {row.eccn or 'incomplete'}.")
            return HttpResponseRedirect(reverse("compliance:part", args=[part.pk]))
        if not request.user.can("compliance.decide"):
            return render(request, "403.html", status=403)
        form = OverrideForm(request.POST)
        if form.is_valid():
            try:
                result = services.part_classification_override(
                    part=part,
                    eccn=form.cleaned_data["eccn"],
                    reason=form.cleaned_data["reason"],
                    actor=request.user,
                )
                if isinstance(result, ComplianceApproval):
                    messages.warning(
                        request,
                        f"Awaiting second officer: {result.control_change}. Nothing changes until a second "
                        "compliance officer approves it.",
                    )
                else:
                    messages.success(request, "Classification overridden.")
                return HttpResponseRedirect(reverse("compliance:part", args=[part.pk]))
            except ValidationError as exc:
                form.add_error(None, exc)
        return self.get(request, pk, form=form, status=400)


class LicenceListView(CapabilityRequiredMixin, FilteredListMixin, TemplateView):
    """The licences the user's organisation holds or is named on, with what is left of each; a
    compliance officer adds one below the list."""

    capability = "compliance.view"
    template_name = "compliance/licences.html"
    partial_template_name = "compliance/_licence_table.html"
    filterset_class = LicenceFilter
    export_name = "licences"
    export_columns = (
        ("Number", lambda lic: lic.number),
        ("Issuing authority", lambda lic: lic.issuing_authority),
        ("ECCNs", lambda lic: lic.eccns),
        ("Destinations", lambda lic: lic.destination_countries),
        ("Licensee", lambda lic: lic.licensee.legal_name),
        ("Consignee", lambda lic: lic.consignee.legal_name),
        ("End user", lambda lic: lic.end_user.legal_name if lic.end_user else None),
        ("Permitted quantity", lambda lic: lic.permitted_quantity),
        ("Quantity left", lambda lic: lic.left_quantity),
        ("Permitted value", lambda lic: lic.permitted_value),
        ("Value left", lambda lic: lic.left_value),
        ("Currency", lambda lic: lic.currency),
        ("Drawn (%)", lambda lic: lic.used_percent),
        ("Valid from", lambda lic: lic.valid_from),
        ("Expires on", lambda lic: lic.expires_on),
        ("Drawdowns", lambda lic: lic.drawdown_count),
    )

    def get_queryset(self):
        return (
            Licence.objects.visible_to(self.request.user)
            .select_related("licensee", "consignee", "end_user")
            .annotate(drawdown_count=Count("drawdowns", filter=Q(drawdowns__released_at__isnull=True)))
            .order_by("expires_on", "number")
        )

    def decorate_page(self, objects: list) -> list:
        # What is left of each licence: one query for the page (or the export's batch).
        left = services.remaining(objects)
        for licence in objects:
            licence.left_quantity, licence.left_value = left[licence.pk]
            licence.used_percent = _used_percent(licence, *left[licence.pk])
        return objects

    def export_rows(self, queryset):
        return exports.in_batches(super().export_rows(queryset), self.export_batch_size, self.decorate_page)

    def get_context_data(self, **kwargs):
        kwargs.setdefault("form", LicenceForm(user=self.request.user))
        kwargs["can_review"] = self.request.user.can("compliance.review")
        return super().get_context_data(**kwargs)

    def post(self, request):
        if not request.user.can("compliance.review"):
            return render(request, "403.html", status=403)
        form = LicenceForm(request.POST, user=request.user)
        if form.is_valid():
            try:
                licence = services.licence_save(
                    licence=Licence(), fields=form.cleaned_data, actor=request.user
                )
                messages.success(request, f"Licence {licence} added.")
                return HttpResponseRedirect(reverse("compliance:licences"))
            except ValidationError as exc:
                form.add_error(None, exc)
        return self.render_to_response(self.get_context_data(form=form), status=400)


def _used_percent(licence: Licence, left_quantity: int, left_value) -> int:
    """How much of the licence is drawn: the larger of the quantity and the value used, in %."""
    shares = []
    if licence.permitted_quantity:
        shares.append((licence.permitted_quantity - left_quantity) / licence.permitted_quantity)
    if licence.permitted_value:
        shares.append(float((licence.permitted_value - left_value) / licence.permitted_value))
    return max(0, min(100, round(100 * max(shares, default=0))))


class LicenceDetailView(CapabilityRequiredMixin, View):
    capability = "compliance.view"

    def get(self, request, pk):
        licence = get_object_or_404(Licence.objects.visible_to(request.user), pk=pk)
        left_quantity, left_value = services.remaining([licence])[licence.pk]
        return render(
            request,
            "compliance/licence_detail.html",
            {
                "licence": licence,
                "left_quantity": left_quantity,
                "left_value": left_value,
                "drawdowns": licence.drawdowns.select_related("line__shipment", "line__part"),
                "used_percent": _used_percent(licence, left_quantity, left_value),
                "can_review": request.user.can("compliance.review"),
            },
        )


class LicenceEditView(CapabilityRequiredMixin, View):
    """Change a licence held (its figures, dates, conditions) in the browser, as the API does."""

    capability = "compliance.review"

    def _licence(self, request, pk):
        return get_object_or_404(Licence.objects.visible_to(request.user, CHANGE), pk=pk)

    def get(self, request, pk, form=None, status=200):
        licence = self._licence(request, pk)
        return render(
            request,
            "compliance/licence_form.html",
            {"licence": licence, "form": form or LicenceForm(instance=licence, user=request.user)},
            status=status,
        )

    def post(self, request, pk):
        licence = self._licence(request, pk)
        form = LicenceForm(request.POST, instance=licence, user=request.user)
        if form.is_valid():
            try:
                services.licence_save(licence=licence, fields=form.cleaned_data, actor=request.user)
                messages.success(request, f"Licence {licence.number} saved.")
                return HttpResponseRedirect(reverse("compliance:licence", args=[licence.pk]))
            except ValidationError as exc:
                add_service_errors(form, exc)
        licence.refresh_from_db()
        return self.get(request, pk, form=form, status=400)


class LicenceExpireView(CapabilityRequiredMixin, View):
    """End a licence now, with the reason (revoked, surrendered, replaced)."""

    capability = "compliance.review"

    def post(self, request, pk):
        licence = get_object_or_404(Licence.objects.visible_to(request.user, CHANGE), pk=pk)
        try:
            services.licence_expire(
                licence=licence, reason=request.POST.get("reason", ""), actor=request.user
            )
            messages.success(
                request, f"Licence {licence.number} ended; shipments that used it are checked again."
            )
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        return HttpResponseRedirect(reverse("compliance:licence", args=[licence.pk]))


class ScreeningListsView(CapabilityRequiredMixin, View):
    capability = "compliance.view"

    def get(self, request, import_form=None, screen_form=None, screening=None, status=200):
        return render(
            request,
            "compliance/lists.html",
            {
                "lists": ScreeningList.objects.all(),
                "import_form": import_form or ListImportForm(),
                "screen_form": screen_form or AdHocScreenForm(),
                "screening": screening,
                "can_review": request.user.can("compliance.review"),
            },
            status=status,
        )

    def post(self, request):
        if request.POST.get("action") == "screen":
            form = AdHocScreenForm(request.POST)
            if form.is_valid():
                try:
                    screening = services.adhoc_screen(
                        names=[form.cleaned_data["name"]],
                        country=form.cleaned_data["country"],
                        threshold=form.cleaned_data["threshold"],
                        actor=request.user,
                    )
                    screening = type(screening).objects.prefetch_related("hits__entry").get(pk=screening.pk)
                    return self.get(request, screen_form=form, screening=screening)
                except ValidationError as exc:
                    form.add_error(None, exc)
            return self.get(request, screen_form=form, status=400)
        if not request.user.can("compliance.review"):
            return render(request, "403.html", status=403)
        form = ListImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                imported = services.screening_list_import(
                    name=form.cleaned_data["name"],
                    source_format=form.cleaned_data["source_format"],
                    data=form.cleaned_data["file"].read(),
                    version=form.cleaned_data["version"],
                    actor=request.user,
                )
                messages.success(
                    request,
                    f"{imported} imported: {imported.entry_count:,} entries. "
                    "Every active party is being re-screened.",
                )
                return HttpResponseRedirect(reverse("compliance:lists"))
            except ValidationError as exc:
                form.add_error(None, exc)
        return self.get(request, import_form=form, status=400)


class CountriesView(CapabilityRequiredMixin, View):
    capability = "compliance.view"

    def get(self, request):
        data = services.active_country_data()
        rows = [
            {
                "code": code,
                "name": name,
                "groups": groups_of(data, code),
                "marks": sorted(chart_marks_for(data, code)),
                "embargoed": code in data.embargoed,
            }
            for code, name in sorted(data.names.items(), key=lambda item: item[1])
        ]
        query = request.GET.get("q", "").strip().lower()
        if query:
            rows = [
                r
                for r in rows
                if query in r["name"].lower()
                or query == r["code"].lower()
                or any(query == g.lower() for g in r["groups"])
            ]
        return render(request, "compliance/countries.html", {"rows": rows, "data": data, "q": query})


class AlertAcknowledgeView(CapabilityRequiredMixin, View):
    """An officer acknowledges a compliance alert with what was done about the departed goods."""

    capability = "compliance.review"

    def post(self, request, pk):
        alert = get_object_or_404(ComplianceAlert.objects.select_related("shipment"), pk=pk)
        try:
            services.alert_acknowledge(alert=alert, actor=request.user, note=request.POST.get("note", ""))
            messages.success(request, f"Alert on {alert.shipment.reference} acknowledged.")
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        return HttpResponseRedirect(safe_next(request, reverse("compliance:queue") + "#alerts"))
