"""Issue 9: every field or filter that takes an id chooses from what the user may see.

One helper each (`ScopedPrimaryKeyRelatedField` for serializers, `ScopedChoicesFormMixin` for
forms, `scope_filter_choices` for filters); the sweeps below walk every serializer, form and
filter of the apps, so a new one that forgets the helper fails here.
"""

import importlib
import inspect
import pkgutil
from decimal import Decimal

import pytest
from django import forms as django_forms
from django_filters import rest_framework as filters
from rest_framework import serializers
from rest_framework.test import APIRequestFactory

import apps
from apps.accounts.models import Organisation
from apps.accounts.roles import Role
from apps.catalog.models import Part
from apps.core.api import ScopedPrimaryKeyRelatedField
from apps.core.filters import ScopedFilterBackend
from apps.core.forms import ScopedChoicesFormMixin
from apps.shipments.models import Site
from tests.factories import OrganisationFactory, PartFactory, UserFactory

PART = {
    "manufacturer": "NVIDIA",
    "part_number": "HGX-B200-8GPU",
    "name": "HGX B200 board",
    "category": "server",
    "unit_weight_kg": "60",
    "length_cm": "80",
    "width_cm": "50",
    "height_cm": "20",
    "unit_value": "300000.00",
    "currency": "USD",
    "country_of_origin": "TW",
    "hs_code": "847150",
}


@pytest.fixture
def rival(db):
    return OrganisationFactory(kind="supplier", legal_name="Rival Accelerators Inc.")


@pytest.fixture
def rival_accelerator(rival):
    return PartFactory(
        owner=rival,
        part_number="SECRET-GPU-1",
        name="Unreleased accelerator",
        category="accelerator",
        hs_code="847330",
        dense_tops={"8": "9000"},
        die_area_mm2=Decimal("800"),
    )


@pytest.fixture
def rival_site(rival):
    return Site.objects.create(owner=rival, name="Rival fab", kind="factory", city="Hsinchu", country="TW")


# --- the finding: another partner's accelerator ---------------------------------------------------


def test_the_api_does_not_link_another_partners_accelerator(supplier_user, rival_accelerator, api_as):
    from tests.factories import ManufacturerFactory

    ManufacturerFactory(name="NVIDIA")
    api = api_as(supplier_user)
    foreign = api.post("/api/v1/parts/", PART | {"accelerator": rival_accelerator.pk}, format="json")
    missing = api.post("/api/v1/parts/", PART | {"accelerator": 999999}, format="json")
    assert foreign.status_code == missing.status_code == 400
    assert foreign.json() == {
        "accelerator": [f'Invalid pk "{rival_accelerator.pk}" - object does not exist.']
    }
    assert not Part.objects.filter(accelerator=rival_accelerator).exists()


def test_the_form_does_not_offer_or_take_another_partners_accelerator(
    supplier_user, rival_accelerator, browser_as
):
    client = browser_as(supplier_user)
    form = client.get("/parts/new/").context["form"]
    assert rival_accelerator not in form.fields["accelerator"].queryset
    assert rival_accelerator.part_number not in client.get("/parts/new/").content.decode()


def test_a_part_contains_only_its_owners_or_the_master_catalogues_accelerator(
    supplier, rival_accelerator, operator
):
    from django.core.exceptions import ValidationError

    nvidia = rival_accelerator.manufacturer
    server = PartFactory.build(
        owner=supplier, manufacturer=nvidia, category="server", accelerator=rival_accelerator
    )
    with pytest.raises(ValidationError) as excinfo:
        server.full_clean()
    assert "accelerator" in excinfo.value.message_dict
    master = PartFactory(category="accelerator", part_number="H100")
    PartFactory.build(
        owner=supplier, manufacturer=nvidia, category="server", accelerator=master, part_number="X1"
    ).full_clean()


def test_a_409_on_delete_names_only_what_the_user_sees(rival, rival_accelerator, supplier, api_as):
    # Data from before the fix: a supplier's server that contains the rival's private accelerator.
    PartFactory(owner=supplier, category="server", accelerator=rival_accelerator, part_number="LEAKY-SRV")
    PartFactory(owner=rival, category="server", accelerator=rival_accelerator, part_number="OWN-SRV")
    owner = UserFactory(organisation=rival, role=Role.PARTNER)
    response = api_as(owner).delete(f"/api/v1/parts/{rival_accelerator.pk}/")
    assert response.status_code == 409
    body = response.json()
    assert "LEAKY-SRV" not in str(body) and supplier.legal_name not in str(body)
    assert body["referenced_by"] == ["NVIDIA OWN-SRV"]
    assert body["not_shown"] == 1


# --- the sweeps: every serializer, form and filter ------------------------------------------------


def _import_all(suffixes=("api", "forms", "filters", "views")):
    for module in pkgutil.walk_packages(apps.__path__, "apps."):
        if module.name.rsplit(".", 1)[-1] in suffixes or ".api." in module.name:
            importlib.import_module(module.name)


def _subclasses(base):
    seen, todo = [], [base]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.append(sub)
                todo.append(sub)
    return [c for c in seen if c.__module__.startswith("apps.")]


def _related_fields(serializer, path=""):
    for name, field in serializer.fields.items():
        where = f"{path}{name}"
        if isinstance(field, serializers.ManyRelatedField):
            field = field.child_relation
        if isinstance(field, serializers.ListSerializer):
            field = field.child
        if isinstance(field, serializers.ListField | serializers.DictField):
            field = field.child
        if isinstance(field, serializers.BaseSerializer):
            yield from _related_fields(field, f"{where}.")
        elif isinstance(field, serializers.RelatedField) and not field.read_only:
            yield where, field


def _scoped_model(model) -> bool:
    return hasattr(model._default_manager.all(), "visible_to")


@pytest.fixture
def partner(supplier_user, rival_accelerator, rival_site):
    return supplier_user


def test_every_writable_related_serializer_field_is_scoped(partner):
    _import_all()
    request = APIRequestFactory().get("/")
    request.user = partner
    checked = []
    for cls in _subclasses(serializers.Serializer):
        serializer = cls(context={"request": request})
        for where, field in _related_fields(serializer):
            queryset = field.get_queryset()
            if not _scoped_model(queryset.model):
                continue  # shared reference data (manufacturers)
            assert isinstance(field, ScopedPrimaryKeyRelatedField), f"{cls.__name__}.{where} is not scoped"
            visible = queryset.model.objects.visible_to(partner)
            if queryset.model is Organisation:
                visible = Organisation.objects.nameable_by(partner)
            assert set(queryset) <= set(visible), f"{cls.__name__}.{where} offers hidden objects"
            checked.append(f"{cls.__name__}.{where}")
    assert {"PartSerializer.accelerator", "ShipmentWriteSerializer.parties", "LineSerializer.part"} <= set(
        checked
    )


def test_every_model_choice_form_field_is_scoped(partner):
    _import_all()
    checked = []
    for cls in _subclasses(django_forms.BaseForm):
        if (
            not issubclass(cls, ScopedChoicesFormMixin)
            and "user" not in inspect.signature(cls.__init__).parameters
        ):
            form = cls()
            fields = [f for f in form.fields.values() if isinstance(f, django_forms.ModelChoiceField)]
            scoped = [f for f in fields if _scoped_model(f.queryset.model)]
            assert not scoped, f"{cls.__name__} has model choices but takes no user"
            continue
        form = cls(user=partner)
        for name, field in form.fields.items():
            if not isinstance(field, django_forms.ModelChoiceField) or not _scoped_model(
                field.queryset.model
            ):
                continue
            model = field.queryset.model
            visible = (
                Organisation.objects.nameable_by(partner)
                if model is Organisation
                else model.objects.visible_to(partner)
            )
            assert set(field.queryset) <= set(visible), f"{cls.__name__}.{name} offers hidden objects"
            checked.append(f"{cls.__name__}.{name}")
    assert {
        "PartForm.accelerator",
        "ShipmentForm.origin",
        "ShipmentForm.party_consignee",
        "LineForm.part",
    } <= set(checked)


def _api_viewsets():
    from config.api_urls import router, urlpatterns

    views = [viewset for _, viewset, _ in router.registry]
    for pattern in urlpatterns:
        cls = getattr(getattr(pattern, "callback", None), "cls", None)
        if cls is not None and cls not in views:
            views.append(cls)
    return views


def test_every_model_choice_filter_is_scoped(partner):
    backend = ScopedFilterBackend()
    request = APIRequestFactory().get("/")
    request.user = partner
    from rest_framework.request import Request

    request = Request(request)
    checked = []
    for viewset in _api_viewsets():
        queryset = getattr(viewset, "queryset", None)
        if queryset is None:
            continue
        view = viewset()
        view.request, view.action, view.kwargs, view.format_kwarg = request, "list", {}, None
        filterset = backend.get_filterset(request, queryset.all(), view)
        if filterset is None:
            continue
        for name, filter_ in filterset.filters.items():
            if not isinstance(filter_, filters.ModelChoiceFilter | filters.ModelMultipleChoiceFilter):
                continue
            choices = filter_.field.queryset
            if not _scoped_model(choices.model):
                continue
            assert set(choices) <= set(choices.model.objects.visible_to(partner)), (
                f"{viewset.__name__}.{name}"
            )
            checked.append(f"{viewset.__name__}.{name}")
    assert "RegistrationViewSet.organisation" in checked and "LicenceViewSet.licensee" in checked


@pytest.mark.parametrize(
    "url, kind",
    [
        ("/api/v1/registrations/?organisation={}", "organisation"),
        ("/api/v1/contacts/?organisation={}", "organisation"),
        ("/api/v1/licences/?licensee={}", "organisation"),
        ("/api/v1/licences/?consignee={}", "organisation"),
        ("/api/v1/classifications/?part={}", "part"),
    ],
)
def test_a_foreign_id_and_a_missing_id_get_the_same_answer(
    partner, rival, rival_accelerator, api_as, url, kind
):
    foreign_id = {"organisation": rival.pk, "part": rival_accelerator.pk}[kind]
    api = api_as(partner)
    foreign = api.get(url.format(foreign_id))
    missing = api.get(url.format(999999))
    assert foreign.status_code == missing.status_code == 400
    assert str(foreign.json()).replace(str(foreign_id), "N") == str(missing.json()).replace("999999", "N")


def test_the_browser_list_filters_are_scoped_too(partner, rival_accelerator, rf):
    import django_filters
    from django.views.generic import TemplateView

    from apps.core.views import FilteredListMixin

    class AcceleratorFilter(django_filters.FilterSet):
        accelerator = django_filters.ModelChoiceFilter(queryset=Part.objects.all())

        class Meta:
            model = Part
            fields = ["accelerator"]

    class Page(FilteredListMixin, TemplateView):
        filterset_class = AcceleratorFilter

        def get_queryset(self):
            return Part.objects.visible_to(self.request.user)

    request = rf.get("/", {"accelerator": rival_accelerator.pk})
    request.user = partner
    view = Page()
    view.setup(request)
    filterset = view.get_filterset()
    assert not filterset.is_valid() and "accelerator" in filterset.errors
