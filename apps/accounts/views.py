from django.contrib import messages
from django.db.models import Count
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse, reverse_lazy
from django.views import View
from django.views.generic import CreateView, DetailView, FormView, TemplateView, UpdateView

from apps.core.access import CapabilityRequiredMixin
from apps.core.scoping import CHANGE
from apps.core.views import (
    AuditTrailMixin,
    FilteredListMixin,
    ScopedQuerysetMixin,
    ServiceFormMixin,
    add_service_errors,
)

from . import services
from .filters import OrganisationFilter
from .forms import ApiTokenForm, ConnectionForm, ContactForm, OrganisationForm, RegistrationForm
from .models import ApiToken, Connection, Organisation, OrganisationKind


class OrganisationListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    capability = "organisations.view"
    template_name = "accounts/organisation_list.html"
    partial_template_name = "accounts/_organisation_table.html"
    filterset_class = OrganisationFilter
    export_name = "organisations"
    # What the list shows, and the names a spreadsheet needs to match rows on.
    export_columns = (
        ("Legal name", lambda org: org.legal_name),
        ("Trading name", lambda org: org.trading_name),
        ("Kind", lambda org: org.get_kind_display()),
        ("City", lambda org: org.city),
        ("Country", lambda org: org.country),
        ("Active", lambda org: org.is_active),
        ("Users", lambda org: org.user_count),
    )

    def get_queryset(self):
        return (
            Organisation.objects.visible_to(self.request.user)
            .annotate(user_count=Count("users"))
            .order_by("legal_name")
        )


class OrganisationDetailView(ScopedQuerysetMixin, AuditTrailMixin, DetailView):
    capability = "organisations.view"
    model = Organisation
    template_name = "accounts/organisation_detail.html"

    def get_queryset(self):
        return (
            super()
            .get_queryset()
            .prefetch_related(
                "registrations", "contacts", "users", Organisation.active_blocks_prefetch("lift_requested_by")
            )
        )

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        user = self.request.user
        context["can_edit"] = user.can("organisations.edit") and (
            Organisation.objects.visible_to(user, CHANGE).filter(pk=self.object.pk).exists()
        )
        context["has_signatory"] = any(c.is_signatory for c in self.object.contacts.all())
        context["connections"] = [
            (connection, connection.other_than(self.object))
            for connection in Connection.objects.filter(Connection.org_scope_q(self.object.pk, "view"))
            .select_related("organisation_a", "organisation_b")
            .order_by("created_at")
        ]
        context["can_connect"] = (
            user.is_operator_staff
            and user.can("connections.manage")
            and self.object.kind != OrganisationKind.OPERATOR
        )
        if context["can_connect"]:
            context["connection_form"] = ConnectionForm(user=user, organisation=self.object)
        if self.object.active_blocks:
            # Only a compliance officer asks for or decides a lift (administrators are not officers).
            context["can_review"] = user.can("compliance.decide")
            context["needs_second_officer"] = _operator_needs_second_officer(user)
        return context


def _operator_needs_second_officer(user) -> bool:
    """The operator's four-eyes setting, from the user's own organisation when it is the operator."""
    if user.organisation_id is not None and user.organisation.kind == OrganisationKind.OPERATOR:
        return user.organisation.compliance_four_eyes
    value = (
        Organisation.objects.filter(kind=OrganisationKind.OPERATOR)
        .values_list("compliance_four_eyes", flat=True)
        .first()
    )
    return True if value is None else value


class _OrganisationFormMixin:
    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "user": self.request.user}


class OrganisationCreateView(_OrganisationFormMixin, ScopedQuerysetMixin, ServiceFormMixin, CreateView):
    capability = "organisations.edit"
    model = Organisation
    form_class = OrganisationForm
    template_name = "accounts/organisation_form.html"

    def save_with_service(self, form):
        organisation = services.organisation_create(fields=form.cleaned_data)
        messages.success(self.request, f"Organisation {organisation} created.")
        return organisation


class OrganisationUpdateView(_OrganisationFormMixin, ScopedQuerysetMixin, ServiceFormMixin, UpdateView):
    scope_action = CHANGE  # editing needs change rights, not just visibility
    capability = "organisations.edit"
    model = Organisation
    form_class = OrganisationForm
    template_name = "accounts/organisation_form.html"

    def save_with_service(self, form):
        fields = {name: form.cleaned_data[name] for name in form.changed_data}
        organisation = services.organisation_update(
            organisation=self.object, fields=fields, actor=self.request.user
        )
        messages.success(self.request, f"Organisation {organisation} saved.")
        return organisation


class _OrganisationChildCreateView(CapabilityRequiredMixin, FormView):
    """Adds a registration or contact to an organisation the user may change."""

    capability = "organisations.edit"
    template_name = "accounts/organisation_child_form.html"
    service = None
    noun = ""

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            self.organisation = get_object_or_404(
                Organisation.objects.visible_to(request.user, CHANGE), pk=kwargs["pk"]
            )
        return super().dispatch(request, *args, **kwargs)

    def get_form_kwargs(self):
        kwargs = super().get_form_kwargs()
        kwargs["instance"] = self.form_class._meta.model(organisation=self.organisation)
        return kwargs

    def get_context_data(self, **kwargs):
        return super().get_context_data(organisation=self.organisation, noun=self.noun, **kwargs)

    def form_valid(self, form):
        from django.core.exceptions import ValidationError

        try:
            type(self).service(organisation=self.organisation, fields=form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
            return self.form_invalid(form)
        messages.success(self.request, f"{self.noun.capitalize()} added.")
        return HttpResponseRedirect(self.organisation.get_absolute_url())


class RegistrationCreateView(_OrganisationChildCreateView):
    form_class = RegistrationForm
    service = staticmethod(services.registration_create)
    noun = "registration"


class ContactCreateView(_OrganisationChildCreateView):
    form_class = ContactForm
    service = staticmethod(services.contact_create)
    noun = "contact"


class ConnectionCreateView(CapabilityRequiredMixin, View):
    """Connect the organisation of the page with another one (operator coordinators and admins)."""

    capability = "connections.manage"

    def post(self, request, pk):
        organisation = get_object_or_404(Organisation.objects.visible_to(request.user), pk=pk)
        form = ConnectionForm(request.POST, user=request.user, organisation=organisation)
        if not form.is_valid():
            messages.error(request, " ".join(m for errors in form.errors.values() for m in errors))
            return HttpResponseRedirect(organisation.get_absolute_url())
        from django.core.exceptions import ValidationError

        try:
            connection = services.connection_create(
                actor=request.user,
                organisation=organisation,
                other=form.cleaned_data["other"],
                note=form.cleaned_data["note"],
            )
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, f"Connected: {connection}.")
        return HttpResponseRedirect(organisation.get_absolute_url())


class ConnectionRemoveView(CapabilityRequiredMixin, View):
    capability = "connections.manage"

    def post(self, request, pk, connection_pk):
        organisation = get_object_or_404(Organisation.objects.visible_to(request.user), pk=pk)
        connection = get_object_or_404(
            Connection.objects.visible_to(request.user).filter(
                Connection.org_scope_q(organisation.pk, "view")
            ),
            pk=connection_pk,
        )
        services.connection_remove(connection=connection, actor=request.user)
        messages.success(request, f"Connection removed: {connection}.")
        return HttpResponseRedirect(organisation.get_absolute_url())


class ApiTokenListView(CapabilityRequiredMixin, FormView):
    """The user's own API tokens: create (key shown once), list, revoke."""

    capability = "tokens.manage"
    template_name = "accounts/token_list.html"
    form_class = ApiTokenForm
    success_url = reverse_lazy("accounts:token-list")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["tokens"] = ApiToken.objects.filter(user=self.request.user)
        return context

    def form_valid(self, form):
        token, key = services.api_token_create(
            user=self.request.user, name=form.cleaned_data["name"], expires_at=form.cleaned_data["expires_at"]
        )
        # Rendered directly, never stored or redirected with: the key exists only in this response.
        return self.render_to_response(
            self.get_context_data(form=ApiTokenForm(), new_token=token, new_key=key)
        )


class ApiTokenRevokeView(CapabilityRequiredMixin, View):
    capability = "tokens.manage"

    def post(self, request, pk):
        token = get_object_or_404(ApiToken, pk=pk, user=request.user)
        services.api_token_revoke(token=token)
        messages.success(request, f"Token {token.name} revoked. Requests with it are now refused.")
        return HttpResponseRedirect(reverse("accounts:token-list"))
