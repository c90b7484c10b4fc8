"""factory_boy factories shared by every test module."""

from decimal import Decimal

import factory

from apps.accounts.models import Contact, Organisation, OrganisationKind, User
from apps.accounts.roles import Role
from apps.catalog.models import Manufacturer, Part, PartCategory, PartTariffCode

PASSWORD = "correct-horse-battery"


class OrganisationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Organisation
        skip_postgeneration_save = True

    kind = OrganisationKind.SUPPLIER
    legal_name = factory.Sequence(lambda n: f"Test Supplier {n} Ltd")
    address_line1 = "1 Test Street"
    city = "Taoyuan"
    country = "TW"
    # Every party can sign its documents (apps/documents/signatures.py); `with_signatory=False` for
    # one that names nobody.
    signatory = factory.Maybe(
        "with_signatory",
        factory.RelatedFactory("tests.factories.SignatoryFactory", factory_related_name="organisation"),
    )

    class Params:
        with_signatory = True


class SignatoryFactory(factory.django.DjangoModelFactory):
    """An organisation's authorised signatory: a contact with a job title."""

    class Meta:
        model = Contact

    organisation = factory.SubFactory(OrganisationFactory, with_signatory=False)
    name = factory.Sequence(lambda n: f"Signatory {n}")
    job_title = "Export Compliance Manager"
    email = factory.Sequence(lambda n: f"signatory{n}@example.com")
    is_signatory = True


class OperatorFactory(OrganisationFactory):
    class Meta:
        model = Organisation
        django_get_or_create = ("kind",)
        skip_postgeneration_save = True

    kind = OrganisationKind.OPERATOR
    legal_name = "Rackpass Test Operator Inc."
    city = "Palo Alto"
    country = "US"

    class Params:
        with_signatory = False  # its own users sign for it


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    first_name = "Test"
    last_name = factory.Sequence(lambda n: f"User{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    organisation = factory.SubFactory(OperatorFactory)
    role = Role.COORDINATOR
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):  # noqa: N805
        if create:
            obj.save()


class ManufacturerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Manufacturer
        django_get_or_create = ("name",)

    name = "NVIDIA"
    country = "US"


class PartFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Part
        skip_postgeneration_save = True

    owner = factory.SubFactory(OperatorFactory)
    manufacturer = factory.SubFactory(ManufacturerFactory)
    part_number = factory.Sequence(lambda n: f"PN-{n:06d}")
    name = factory.Sequence(lambda n: f"Test part {n}")
    category = PartCategory.NETWORK_SWITCH
    unit_weight_kg = Decimal("14.500")
    length_cm = Decimal("60.00")
    width_cm = Decimal("45.00")
    height_cm = Decimal("10.00")
    unit_value = Decimal("25000.00")
    currency = "USD"
    country_of_origin = "MX"
    hs_code = "851762"
    is_serialised = True
    power_draw_w = 1720

    @factory.post_generation
    def schedule_b(obj, create, extracted, **kwargs):
        """The part's US Schedule B / HTS number (for a US export's EEI and SLI): its HS code + "0000"
        unless given (`PartFactory(schedule_b="8471500150")`); `schedule_b=""` records none."""
        if create and extracted != "":
            PartTariffCode.objects.create(
                part=obj, country="US", code=extracted or (obj.hs_code[:6] + "0000")
            )
