"""Resolving a compliance check's hold reasons, and the facts that answer them after the check.

A hold reason is resolved by the fact that answers it, not by words: a licence-required line by a
licence held (its number, checked and drawn down), a possible match by deciding the screening hit
(`hit_decided`), a blocked party only by reversing the match (four eyes, `block_lifted`), an
incomplete classification by classifying the part; a prohibited line never. Only an import
requirement or an end-use flag can be resolved with an officer's written note. When nothing is
left open the shipment moves on; when a fact changed meanwhile, the shipment is checked again."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.audit import record
from apps.core.validators import text_problem
from apps.shipments.models import Shipment, ShipmentStatus

from ..models import (
    ComplianceCheck,
    HitStatus,
    HoldKind,
    HoldReason,
    Licence,
    LicenceDrawdown,
    PartyBlock,
    ResolvedVia,
)
from .checks import OPEN_STATUSES, apply_to_shipment, compliance_check_start
from .classification import current_classification
from .decisions import BlockLifted, HitDecided, listen
from .fingerprint import Roles, licences_by_line, shipment_fingerprint
from .licences import remaining
from .line_licences import licence_unusable, line_exporter

# Statuses in which the goods have not left: a changed answer still stops them.
RECHECK_STATUSES = (
    ShipmentStatus.COMPLIANCE_REVIEW,
    ShipmentStatus.ON_HOLD,
    ShipmentStatus.APPROVED,
    ShipmentStatus.BOOKED,
)
# Kinds an officer may resolve with a written note; every other kind needs the fact that answers it.
NOTE_KINDS = (HoldKind.IMPORT, HoldKind.END_USE)
MIN_NOTE = 15
UNRESOLVABLE = {
    HoldKind.PROHIBITED: "A prohibited line cannot be resolved: remove the line, or change the destination "
    "or parties, and run the check again.",
    HoldKind.BLOCKED: "A confirmed restricted-party match is resolved only by reversing the match decision "
    "(with a reason, approved by a second compliance officer) on the organisation's page.",
    HoldKind.SCREENING: "Decide the screening hit in the review queue (clear or confirm it): the decision "
    "resolves this reason.",
    HoldKind.CLASSIFICATION: "Add the missing figures to the part, or classify it as a compliance officer; "
    "the check then runs again.",
    HoldKind.CHECK_ERROR: "Fix what stopped the check and run it again.",
}


@transaction.atomic
def hold_reason_resolve(
    *, hold: HoldReason, actor: User, resolution: str = "", licence_number: str = ""
) -> HoldReason:
    """A compliance officer resolves one hold reason with the fact that answers it (see the module
    docstring); when none is left open, the shipment moves on. A default classification's reason
    is answered by confirming the default, a four-eyes decision: `services.hold_reason_resolve`
    (apps.compliance.services.approvals) asks for it and `confirmed_default_close` closes the
    reason once it is decided."""
    hold = _open_hold(hold)
    resolution = (resolution or "").strip()
    if problem := text_problem(resolution, "free_text"):
        raise ValidationError({"resolution": problem})
    check = hold.compliance_check
    shipment = check.shipment
    if hold.kind in UNRESOLVABLE:
        raise ValidationError({"resolution": UNRESOLVABLE[hold.kind]})
    if hold.kind == HoldKind.LICENCE:
        licence = _resolve_with_licence(hold, check, shipment, licence_number, actor)
        hold.licence, hold.resolved_via = licence, ResolvedVia.LICENCE
        resolution = f"Licence {licence.number} covers it. {resolution}".strip()
    elif hold.kind == HoldKind.UNCONFIRMED:
        raise ValidationError(
            {"resolution": "Confirming a default classification needs a compliance officer's request "
             "and, with four eyes on, a second officer's approval (services.hold_reason_resolve)."}
        )  # fmt: skip
    else:  # NOTE_KINDS
        if len(resolution) < MIN_NOTE:
            raise ValidationError(
                {
                    "resolution": "Say how the reason was resolved and on what evidence "
                    f"(at least {MIN_NOTE} characters)."
                }
            )
        hold.resolved_via = ResolvedVia.OFFICER_NOTE
    _close(hold, actor, resolution)
    return hold


def _open_hold(hold: HoldReason) -> HoldReason:
    hold = (
        HoldReason.objects.select_for_update(of=("self",))
        .select_related("compliance_check__shipment__destination", "line__part")
        .get(pk=hold.pk)
    )
    if hold.resolved_at is not None:
        raise ValidationError({"resolution": "This reason is already resolved."})
    return hold


def confirmed_default_problems(hold: HoldReason, resolution: str) -> dict[str, str]:
    """What stops `resolution` from confirming the default classification `hold` is about."""
    if hold.kind != HoldKind.UNCONFIRMED:
        return {"hold_reason": "This reason is not about a default classification."}
    if problem := text_problem(resolution, "free_text"):
        return {"resolution": problem}
    if len(resolution) < MIN_NOTE:
        return {
            "resolution": "Say on what the default classification is confirmed "
            "(e.g. the manufacturer's published ECCN and where it is stated)."
        }
    current = current_classification(hold.line.part) if hold.line else None
    if current is None or not current.eccn:
        return {"resolution": "The part has no classification to confirm; classify it."}
    return {}


def confirmed_default_close(*, hold: HoldReason, actor: User, resolution: str) -> HoldReason | None:
    """Close a default classification's reason once confirming the default was decided (with four
    eyes, by the approving officer); the shipment moves on when nothing is left open. A reason
    closed meanwhile (a newer check answered it) is left as it is: None."""
    try:
        hold = _open_hold(hold)
    except ValidationError:
        return None
    hold.resolved_via = ResolvedVia.CLASSIFICATION
    _close(hold, actor, resolution.strip())
    return hold


def _close(hold: HoldReason, actor: User, resolution: str) -> None:
    check = hold.compliance_check
    shipment = check.shipment
    hold.resolved_by, hold.resolved_at, hold.resolution = (
        actor,
        timezone.now(),
        resolution,
    )
    hold.save(
        update_fields=[
            "resolved_by",
            "resolved_at",
            "resolution",
            "resolved_via",
            "licence",
        ]
    )
    if hold.kind == HoldKind.LICENCE:
        # The shipment's history is read by all its parties; the licence's own history has the detail.
        line = hold.line.line_number if hold.line else "?"
        record(
            shipment,
            action="update",
            actor=actor,
            message=f"Licence-required reason of line {line} resolved.",
        )
        record(
            hold.licence,
            action="update",
            actor=actor,
            message=f"Applied to {shipment.reference} line {line}: {hold.text}",
        )
    else:
        record(
            shipment,
            action="update",
            actor=actor,
            message=f"Hold reason resolved ({hold.get_resolved_via_display()}): {hold.text} — "
            f"{hold.resolution}",
        )
    _settle(check, actor)


def _resolve_with_licence(hold, check, shipment, licence_number: str, actor) -> Licence:
    """The licence named must be one this shipment may use, cover the line, be valid and have room;
    it is drawn down now, under a row lock."""
    number = (licence_number or "").strip()
    if not number:
        raise ValidationError({"licence_number": "Give the number of the licence that covers this line."})
    if hold.line is None:
        raise ValidationError({"licence_number": "This reason concerns no line."})
    line_result = check.line_results.filter(line=hold.line).first()
    eccn = line_result.eccn if line_result else ""
    roles = Roles.of(shipment.parties.select_related("organisation"))
    line_licences = licences_by_line(shipment, roles).get(hold.line_id, [])
    candidates = {lic.number.lower(): lic for lic in line_licences}
    licence = candidates.get(number.lower())
    if licence is None:
        raise ValidationError(
            {
                "licence_number": f"No licence {number} held by the exporter "
                f"({line_exporter(hold.line, roles) or 'not named'}) for consignee "
                f"{roles.consignee or '(not named)'} "
                f"and end user {roles.end_user or '(not named)'} to {shipment.destination.country}."
            }
        )
    licence = Licence.objects.select_for_update().get(pk=licence.pk)
    line = hold.line
    value = line.unit_value * line.quantity
    left = remaining([licence], exclude_shipment=shipment)[licence.pk]
    problem = licence_unusable(licence, eccn, line.quantity, value, left, timezone.localdate())
    if problem:
        raise ValidationError({"licence_number": problem[0].upper() + problem[1:] + "."})
    if check.shipment_version == shipment_fingerprint(shipment):
        # The check of this version stands: the line draws on the licence now.
        LicenceDrawdown.objects.create(
            licence=licence,
            compliance_check=check,
            line=line,
            quantity=line.quantity,
            value=value,
        )
        # Documents read the line's licence from the check.
        check.line_results.filter(line=line).update(licence=licence)
    # Otherwise the licence is newer than the check: the re-check `_settle` queues draws on it.
    return licence


def _settle(check: ComplianceCheck, actor: User | None) -> None:
    """After reasons were resolved: move the shipment on when nothing is left open. When a fact
    changed meanwhile (a licence recorded, a hit decided), the check of the new version runs."""
    if check.hold_reasons.filter(resolved_at__isnull=True).exists():
        return
    shipment = check.shipment
    if check.shipment_version == shipment_fingerprint(shipment):
        apply_to_shipment(shipment, check, actor)
    else:
        _recheck(Shipment.objects.filter(pk=shipment.pk), actor)


def _open_shipments_naming(organisation_id: int):
    return Shipment.objects.filter(
        parties__organisation_id=organisation_id, status__in=OPEN_STATUSES
    ).distinct()


def hit_decided(*, hit, actor: User | None) -> None:
    """Call inside the transaction that cleared or confirmed `hit` (a ScreeningHit of an
    organisation): resolves the hold reasons the hit raised (cleared) or turns them into blocked-party
    reasons (confirmed), and moves on shipments with nothing left open."""
    organisation_id = hit.screening.organisation_id
    if organisation_id is None:
        return
    reasons = list(
        HoldReason.objects.select_for_update(of=("self",))
        .filter(
            kind=HoldKind.SCREENING,
            resolved_at__isnull=True,
            organisation_id=organisation_id,
            hit__entry__entry_id=hit.entry.entry_id,
        )
        .select_related("compliance_check__shipment")
    )
    who = (actor.get_full_name() or actor.username) if actor else "the system"
    if hit.status == HitStatus.CLEARED:
        now = timezone.now()
        for reason in reasons:
            reason.resolved_by, reason.resolved_at = actor, now
            reason.resolved_via = ResolvedVia.HIT_CLEARED
            reason.resolution = f"Screening hit cleared by {who}: {hit.decision_reason}"
            reason.save(
                update_fields=[
                    "resolved_by",
                    "resolved_at",
                    "resolved_via",
                    "resolution",
                ]
            )
        for check in {r.compliance_check_id: r.compliance_check for r in reasons}.values():
            _settle(check, actor)
    elif hit.status == HitStatus.CONFIRMED:
        for reason in reasons:
            reason.kind = HoldKind.BLOCKED
            reason.text = (
                f"{reason.text.split(':')[0]}: confirmed match with {hit.entry.name} ({hit.entry.source}) by "
                f"{who} — the party is blocked: {hit.decision_reason}"
            )[:600]
            reason.save(update_fields=["kind", "text"])
        # Held shipments stay held; approved or booked ones naming the party are checked again.
        _recheck(_open_shipments_naming(organisation_id), actor)


def block_lifted(*, block: PartyBlock, actor: User | None) -> None:
    """Call inside the transaction that lifted `block`: resolves the blocked-party reasons it
    caused and re-checks the open shipments naming the organisation."""
    now = timezone.now()
    reasons = HoldReason.objects.filter(
        kind=HoldKind.BLOCKED,
        resolved_at__isnull=True,
        organisation_id=block.organisation_id,
    )
    reasons.update(
        resolved_by=actor,
        resolved_at=now,
        resolved_via=ResolvedVia.BLOCK_LIFTED,
        resolution=f"Match reversed and block lifted: {block.lift_reason}"[:2000],
    )
    _recheck(_open_shipments_naming(block.organisation_id), actor)


def _recheck(shipments, actor: User | None) -> None:
    """Queue a check of each shipment whose goods have not left and that has been checked before."""
    for shipment in shipments.filter(status__in=RECHECK_STATUSES, compliance_checks__isnull=False).distinct():
        if shipment.status == ShipmentStatus.ON_HOLD and shipment.hold_kind != "compliance":
            continue
        compliance_check_start(shipment=shipment, actor=actor)


def screening_decided(decision: HitDecided | BlockLifted) -> None:
    """Listens to `services.decisions`: a screening decision answers the reasons it concerns."""
    if isinstance(decision, HitDecided):
        hit_decided(hit=decision.hit, actor=decision.actor)
    else:
        block_lifted(block=decision.block, actor=decision.actor)


def register() -> None:
    """Called from the app's ready(): answer the hold reasons a screening decision concerns."""
    listen(screening_decided)
