"""Answers go stale with their inputs, and nothing departs on a stale answer.

Every change to what a shipment's compliance answer rests on arrives here by one path
(`answers_stale`, listening to `services.inputs`): a list edition, a country-data edition, a
classification, a licence recorded, changed or ended, a party's organisation renamed or moved or its
registrations changed, a part's facts, a destination's import requirements or a part's
certifications, and (through `shipments.hooks.on_change`) a party, line or term of a draft. In the
transaction that made the change, the open shipments it concerns get their checks marked stale
with the reason, and:

- a draft is checked again when it is submitted (its stale mark says why the old answer is void);
- a shipment not departed is checked again after the change commits (Celery) — or at once, in the
  same transaction, when a party newly matches a list entry, so the hold is in place before anything
  can depart;
- a shipment already gone is checked again for the record; if the answer no longer passes the
  officers are alerted (`services.alerts`).

The departure guard (`departure_problems`, on entering in transit) refuses to move a shipment whose
answer is not current — stale, or made for another version of the shipment — or does not pass; a
milestone that would move it is refused with the reasons (409 in the API)."""

from __future__ import annotations

from django.core.exceptions import FieldDoesNotExist
from django.db.models import Q
from django.utils import timezone

from apps.accounts.models import Organisation
from apps.core.audit import record
from apps.shipments.models import Shipment, ShipmentStatus

from ..disclosure import RESTRICTED_PARTY_KINDS, RESTRICTED_PARTY_TEXT
from ..models import ComplianceCheck
from .alerts import has_departed
from .checks import OPEN_STATUSES, compliance_check_run, compliance_check_start
from .fingerprint import shipment_fingerprint
from .inputs import InputsChanged, listen, naming

# What of an organisation a compliance answer reads (its names are screened, its country decides
# licence and end-user rules).
ORGANISATION_FIELDS = {"legal_name": "legal name", "trading_name": "trading name", "country": "country"}


def answers_stale(change: InputsChanged) -> int:
    """Mark the checks of the open shipments `change` concerns stale with its reason and check
    them again (see the module docstring); returns how many shipments were concerned."""
    concerned = Shipment.objects.filter(
        Q(pk__in=Shipment.objects.filter(change.shipments).values("pk")),
        status__in=OPEN_STATUSES,
        compliance_checks__isnull=False,
    ).distinct()
    shipments = list(concerned.order_by("pk"))
    if not shipments:
        return 0
    reason = change.reason[:500]
    ComplianceCheck.objects.filter(
        shipment_id__in=[s.pk for s in shipments], stale_since__isnull=True
    ).update(stale_since=timezone.now(), stale_reason=reason)
    for shipment in shipments:
        record(shipment, action="update", actor=change.actor, message=f"Compliance answer stale: {reason}")
        if shipment.status == ShipmentStatus.DRAFT:
            continue  # checked when it is submitted
        if change.check_now and not has_departed(shipment):
            compliance_check_run(shipment=shipment, actor=change.actor)
        else:
            compliance_check_start(shipment=shipment, actor=change.actor)
    return len(shipments)


def shipment_changed(shipment: Shipment, reason: str, actor) -> None:
    """`shipments.hooks.on_change`: a party, line or term of the shipment changed."""
    answers_stale(InputsChanged(reason=reason, shipments=Q(pk=shipment.pk), actor=actor))


def organisation_changed(organisation: Organisation, fields: set[str], actor) -> None:
    """`accounts.hooks.on_organisation_change`: a party's names or country changed."""
    changed = [label for name, label in ORGANISATION_FIELDS.items() if name in fields]
    if "registrations" in fields:
        changed.append("registrations")
    if not changed:
        return
    answers_stale(
        InputsChanged(
            reason=f"{organisation} changed its {', '.join(changed)}.",
            shipments=naming([organisation.pk]),
            actor=actor,
        )
    )


def part_changed(part, fields: set[str], actor) -> None:
    """`catalog.hooks.on_part_change`: a part's figures, category, origin or codes changed; its
    engine classification is brought up to date by the re-check."""
    labels = [_field_label(part, name) for name in sorted(fields)]
    answers_stale(
        InputsChanged(
            reason=f"Part {part.part_number} changed its {', '.join(labels)}.",
            shipments=Q(lines__part=part),
            actor=actor,
        )
    )


def _field_label(instance, name: str) -> str:
    try:
        return str(instance._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:  # a name that is no model field is shown as it is
        return name


def departure_problems(shipment: Shipment) -> list[str]:
    """The guard on leaving (entering in transit): a check of the shipment as it is now, not
    stale, that passes or whose every reason is resolved. Every party of the shipment may read
    these reasons (the forwarder's 409): restricted-party reasons say only that a party is under
    review."""
    check = ComplianceCheck.objects.filter(
        shipment=shipment, shipment_version=shipment_fingerprint(shipment)
    ).first()
    if check is None or check.stale_since is not None:
        latest = shipment.compliance_checks.order_by("-finished_at", "-id").first()
        stale = check or latest
        why = (
            stale.stale_reason
            if stale is not None and stale.stale_reason
            else "the shipment or what its answer rests on changed since its last check"
        )
        return [
            f"The compliance answer is not current ({why.rstrip('.')}): it is being checked again, "
            "and the goods may not depart until a check of the shipment as it is now has passed."
        ]
    texts = []
    for hold in check.hold_reasons.filter(resolved_at__isnull=True):
        if hold.kind in RESTRICTED_PARTY_KINDS:
            text = RESTRICTED_PARTY_TEXT
        elif hold.licence_id is not None:  # the licence's number is for its own parties only
            text = "a line needs a licence that the exporter's licence does not cover."
        else:
            text = hold.text
        if text not in texts:
            texts.append(text)
    return [f"Unresolved compliance hold: {text}" for text in texts]


def register() -> None:
    """Called from the app's ready(): listen to every input change, guard the departure."""
    from apps.accounts import hooks as account_hooks
    from apps.catalog import hooks as catalog_hooks
    from apps.shipments import hooks as shipment_hooks

    listen(answers_stale)
    shipment_hooks.guard(ShipmentStatus.IN_TRANSIT, departure_problems)
    shipment_hooks.on_change(shipment_changed)
    account_hooks.on_organisation_change(organisation_changed)
    catalog_hooks.on_part_change(part_changed)
