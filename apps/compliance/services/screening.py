"""Restricted-party screening: import lists (all or nothing), screen parties, review hits."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from apps.accounts.models import Organisation, User
from apps.core.audit import record_transition
from apps.core.tasks_outbox import enqueue_on_commit
from apps.shipments.engines.workflow import TERMINAL
from apps.shipments.models import PartyRole, ShipmentParty, ShipmentStatus

from ..models import HitStatus, PartyBlock, Screening, ScreeningHit, ScreeningList, ScreeningListEntry
from ..screening.matcher import Hit, ListEntry, ScreeningIndex
from ..screening.parsers import ParsedList, parse_csl_csv, parse_csl_json, parse_opensanctions_jsonl
from .decisions import BlockLifted, HitDecided, decided

PARSERS = {"csl_json": parse_csl_json, "csl_csv": parse_csl_csv, "opensanctions": parse_opensanctions_jsonl}
FORMAT_LABELS = {
    "csl_json": "CSL JSON (bulk download)",
    "csl_csv": "CSL CSV",
    "opensanctions": "OpenSanctions JSON lines",
}
MAX_REPORTED_ERRORS = 50


def default_threshold() -> Decimal:
    return Decimal(str(getattr(settings, "RACKPASS_SCREENING_THRESHOLD", "0.80")))


# --- lists ------------------------------------------------------------------------------------


def screening_list_import(
    *,
    name: str,
    source_format: str,
    data: bytes,
    version: str = "",
    actor: User | None = None,
    rescreen: bool = True,
) -> ScreeningList:
    """Parse and store a new edition of a list. Any bad record refuses the whole file, naming
    each bad record by number; the previous edition stays active until this one is stored."""
    if source_format not in PARSERS:
        raise ValidationError(
            {"source_format": f"Unknown format {source_format!r}; use {', '.join(PARSERS)}."}
        )
    try:
        parsed: ParsedList = PARSERS[source_format](
            data, **({"version": version or None} if source_format == "csl_json" else {})
        )
    except ValueError as exc:
        raise ValidationError(
            {"file": f"The file cannot be read as {FORMAT_LABELS[source_format]}: {exc}"}
        ) from exc
    if parsed.errors:
        # The parsers' messages already name the record ("record 12 (NAME): …").
        shown = [message[:1].upper() + message[1:] for _, message in parsed.errors[:MAX_REPORTED_ERRORS]]
        more = len(parsed.errors) - len(shown)
        raise ValidationError(
            {
                "file": [
                    *shown,
                    *([f"… and {more} more bad records."] if more > 0 else []),
                    "Nothing was imported.",
                ]
            }
        )
    if not parsed.entries:
        raise ValidationError({"file": "The file holds no entries; nothing was imported."})
    version = (version or parsed.version or "").strip()
    if not version:
        raise ValidationError({"version": "The file carries no version; give one."})
    if ScreeningList.objects.filter(name=name, version=version).exists():
        raise ValidationError({"version": f"{name} version {version} is already imported."})
    before = active_index()
    with transaction.atomic():
        screening_list = ScreeningList(
            name=name,
            source_format=source_format,
            version=version,
            published=parsed.published,
            entry_count=len(parsed.entries),
            imported_by=actor,
        )
        screening_list.full_clean()
        screening_list.save()
        ScreeningListEntry.objects.bulk_create(
            [_entry_row(screening_list, entry) for entry in parsed.entries], batch_size=2000
        )
        ScreeningList.objects.filter(name=name, is_active=True).exclude(pk=screening_list.pk).update(
            is_active=False
        )
        _answers_rest_on_lists(before, active_index(), f"{name} {version}", actor)
        if rescreen:
            enqueue_on_commit(
                "compliance.rescreen_parties",
                kwargs={"actor_id": actor.pk if actor else None},
                kind="re-screening",
                actor=actor,
                object_repr=f"{name} {version}",
            )
    invalidate_index()
    return screening_list


def _answers_rest_on_lists(before: ActiveIndex, after: ActiveIndex, edition: str, actor) -> None:
    """In the import's transaction: the parties of open shipments that the new edition screens
    differently (an entry they match added, removed or changed) make those shipments' answers stale.
    A party newly matching an entry has its shipments not yet departed checked now, in this
    transaction, so they are held before anything can depart; the others are checked after it."""
    from apps.shipments.models import ShipmentLine

    from .inputs import InputsChanged, inputs_changed, naming

    open_statuses = [s for s in ShipmentStatus.values if s not in TERMINAL]
    org_ids = set(
        ShipmentParty.objects.filter(shipment__status__in=open_statuses).values_list(
            "organisation_id", flat=True
        )
    )
    for shipper, exporter in ShipmentLine.objects.filter(shipment__status__in=open_statuses).values_list(
        "shipper_id", "exporter_of_record_id"
    ):
        org_ids.update(pk for pk in (shipper, exporter) if pk)
    threshold = float(default_threshold())

    def matched(index: ActiveIndex, organisation) -> set[tuple[str, str]]:
        hits = index.index.search(
            organisation_names(organisation), country=organisation.country or None, threshold=threshold
        )
        return {(hit.entry_id, index.ids[hit.entry_id][1]) for hit in hits}

    listed, changed = set(), set()
    for organisation in Organisation.objects.filter(pk__in=org_ids).order_by("pk"):
        was, now = matched(before, organisation), matched(after, organisation)
        if now - was:
            listed.add(organisation.pk)
        elif was != now:
            changed.add(organisation.pk)
    if listed:
        inputs_changed(
            InputsChanged(
                reason=f"{edition} imported: a party of this shipment is under restricted-party review "
                "by Rackpass compliance.",
                shipments=naming(listed),
                actor=actor,
                check_now=True,
            )
        )
    if changed:
        inputs_changed(
            InputsChanged(
                reason=f"{edition} imported: the list entries a party of this shipment matches changed.",
                shipments=naming(changed) & ~naming(listed),
                actor=actor,
            )
        )


def _entry_row(
    screening_list: ScreeningList | None,
    entry: ListEntry,
    *,
    pk: int | None = None,
    list_id: int | None = None,
) -> ScreeningListEntry:
    """The row of a list entry: a new one to insert, or (with `pk` and `list_id`) the stored one,
    rebuilt from the index without reading it back."""
    row = ScreeningListEntry(
        pk=pk,
        screening_list=screening_list,
        entry_id=entry.entry_id[:100],
        name=entry.name[:500],
        aliases=list(entry.aliases),
        countries=list(entry.countries),
        source=entry.source[:200],
        entity_type=entry.entity_type[:40],
        programs=list(entry.programs),
        entity_number=entry.entity_number[:60],
        license_requirement=entry.license_requirement,
        remarks=entry.remarks,
        fingerprint=entry.fingerprint,
    )
    if pk is not None:
        row.screening_list_id = list_id
        row._state.adding, row._state.db = False, ScreeningListEntry.objects.db
    return row


# --- the index, built once per process per set of active lists ---------------------------------


class ActiveIndex(NamedTuple):
    """The index of the active lists' entries; `ids` maps the list's entry id to the entry's row
    (primary key, fingerprint, list); `versions` names the editions searched."""

    index: ScreeningIndex
    ids: dict[str, tuple[int, str, int]]
    versions: list[str]


_index_lock = threading.Lock()
_index_cache: dict[tuple, tuple[ScreeningIndex, dict[str, tuple[int, str, int]]]] = {}


def invalidate_index() -> None:
    with _index_lock:
        _index_cache.clear()


def active_index() -> ActiveIndex:
    """The index of every active list's entries, built once per process per set of active lists
    (one small query says which lists are active, so a new edition imported by another process
    is picked up by the next screening)."""
    lists = list(ScreeningList.objects.filter(is_active=True).values_list("pk", "name", "version"))
    key = tuple(lists)
    with _index_lock:
        cached = _index_cache.get(key)
    if cached is None:
        rows = ScreeningListEntry.objects.filter(screening_list__is_active=True).values(
            "pk",
            "screening_list_id",
            "entry_id",
            "name",
            "aliases",
            "countries",
            "source",
            "entity_type",
            "programs",
            "entity_number",
            "license_requirement",
            "remarks",
            "fingerprint",
        )
        entries, ids = [], {}
        for row in rows.iterator(chunk_size=5000):
            ids[row["entry_id"]] = (row["pk"], row["fingerprint"], row["screening_list_id"])
            entries.append(
                ListEntry(
                    entry_id=row["entry_id"],
                    name=row["name"],
                    aliases=tuple(row["aliases"]),
                    countries=tuple(row["countries"]),
                    source=row["source"],
                    entity_type=row["entity_type"],
                    programs=tuple(row["programs"]),
                    entity_number=row["entity_number"],
                    license_requirement=row["license_requirement"],
                    remarks=row["remarks"],
                    fingerprint=row["fingerprint"],
                )
            )
        cached = (ScreeningIndex(entries), ids)
        with _index_lock:
            _index_cache.clear()
            _index_cache[key] = cached
    return ActiveIndex(cached[0], cached[1], [f"{name} {version}" for _, name, version in lists])


# --- screening ---------------------------------------------------------------------------------


def organisation_names(organisation: Organisation) -> list[str]:
    return [n for n in dict.fromkeys([organisation.legal_name, organisation.trading_name]) if n]


def find_hits(names: list[str], country: str, threshold: Decimal) -> tuple[list[Hit], list[str]]:
    index, _, versions = active_index()
    return index.search(names, country=country or None, threshold=float(threshold)), versions


@transaction.atomic
def screening_record(
    *,
    names: list[str],
    country: str,
    threshold: Decimal,
    hits: list[Hit],
    versions: list[str],
    organisation: Organisation | None,
    actor: User | None,
    trigger: str,
    active: ActiveIndex | None = None,
) -> Screening:
    """Store a screening and its hits (two inserts). An organisation's hit on a listed entry (by
    the list's own entry id, the same in every edition) is recorded as:

    - *previously confirmed* when a hit on that entry was confirmed for the organisation and not
      reversed since: the party is blocked already, nothing new to review;
    - *duplicate* when a hit on that entry is open for the organisation: it waits for review once;
    - *previously cleared* when a hit on that entry was cleared (or its confirmation reversed) for
      the organisation while the entry read as it reads now (same fingerprint);
    - *open* otherwise: it goes to the review queue.

    The organisation's row is locked while this is decided, and a conditional unique constraint
    keeps one open hit per organisation and entry, so concurrent screenings cannot both open one.
    (A caller screening several organisations in one transaction should lock them in primary-key
    order first, to avoid deadlocks.) Ad hoc screenings (no organisation) read nothing: their hits
    are recorded as they are and never reviewed.

    The returned screening carries its hits, with their entries, in memory (`hit_list`).
    """
    active = active or active_index()
    rows_by_id = {hit.entry_id: active.ids.get(hit.entry_id) for hit in hits}
    missing = [entry_id for entry_id, row in rows_by_id.items() if row is None]
    if missing:
        # The active lists changed since the search: take the newest row of each entry.
        for pk, entry_id, fingerprint, list_id in (
            ScreeningListEntry.objects.filter(entry_id__in=missing)
            .order_by("pk")
            .values_list("pk", "entry_id", "fingerprint", "screening_list_id")
        ):
            rows_by_id[entry_id] = (pk, fingerprint, list_id)
    statuses = _hit_statuses(organisation, hits, rows_by_id)
    screening = Screening.objects.create(
        organisation=organisation,
        requested_by_organisation=actor.organisation if actor else None,
        names=names,
        country=country or "",
        threshold=threshold,
        list_versions=versions,
        hit_count=len(hits),
        open_hit_count=sum(1 for status in statuses if status == HitStatus.OPEN),
        screened_by=actor,
        trigger=trigger,
    )
    rows = []
    in_memory = True  # every hit's entry rebuilt from the index, so no need to read them back
    for hit, status in zip(hits, statuses, strict=True):
        entry_pk, fingerprint, list_id = rows_by_id[hit.entry_id]
        row = ScreeningHit(
            screening=screening,
            organisation=organisation,
            entry_id=entry_pk,
            list_entry_id=hit.entry_id[:100],
            entry_fingerprint=fingerprint,
            matched_name=hit.matched_name[:500],
            query_name=hit.query_name[:500],
            score=Decimal(str(round(hit.score, 4))),
            country_match=hit.country_match,
            reasons=list(hit.reasons),
            status=status,
        )
        listed = active.index.get(hit.entry_id)
        if listed is not None and listed.fingerprint == fingerprint:
            row.entry = _entry_row(None, listed, pk=entry_pk, list_id=list_id)
        else:
            in_memory = False
        rows.append(row)
    ScreeningHit.objects.bulk_create(rows)
    if in_memory and all(row.pk is not None for row in rows):
        rows.sort(key=lambda row: (-row.score, row.pk))  # ScreeningHit's ordering
        screening._recorded_hits = rows
    return screening


def _hit_statuses(
    organisation: Organisation | None, hits: list[Hit], rows_by_id: dict[str, tuple[int, str, int]]
) -> list[str]:
    """What each hit of a screening is recorded as (see `screening_record`)."""
    if organisation is None or not hits:
        return [HitStatus.OPEN] * len(hits)
    # Serialises screenings of the same organisation: the second one sees the first one's hits.
    list(Organisation.objects.select_for_update().filter(pk=organisation.pk).values_list("pk"))
    confirmed: set[str] = set()
    open_: set[str] = set()
    cleared: set[tuple[str, str]] = set()
    for entry_id, status, fingerprint in ScreeningHit.objects.filter(
        organisation=organisation,
        list_entry_id__in={hit.entry_id for hit in hits},
        status__in=[HitStatus.OPEN, HitStatus.CONFIRMED, HitStatus.CLEARED, HitStatus.REVERSED],
    ).values_list("list_entry_id", "status", "entry_fingerprint"):
        if status == HitStatus.CONFIRMED:
            confirmed.add(entry_id)
        elif status == HitStatus.OPEN:
            open_.add(entry_id)
        else:
            cleared.add((entry_id, fingerprint))
    statuses = []
    for hit in hits:
        if hit.entry_id in confirmed:
            status = HitStatus.PREVIOUSLY_CONFIRMED
        elif hit.entry_id in open_:
            status = HitStatus.DUPLICATE
        elif (hit.entry_id, rows_by_id[hit.entry_id][1]) in cleared:
            status = HitStatus.PREVIOUSLY_CLEARED
        else:
            status = HitStatus.OPEN
            open_.add(hit.entry_id)  # a second hit on the entry in this screening is a duplicate
        statuses.append(status)
    return statuses


def open_hits_for(organisation: Organisation, entry_ids: Iterable[str]) -> dict[str, ScreeningHit]:
    """The open hit of `organisation` on each of the listed entries that has one, by the list's
    entry id: what a compliance check's hold reasons link to (there is at most one per entry)."""
    entry_ids = set(entry_ids)
    if not entry_ids:
        return {}
    hits = ScreeningHit.objects.filter(
        organisation=organisation, list_entry_id__in=entry_ids, status=HitStatus.OPEN
    ).select_related("entry")
    return {hit.list_entry_id: hit for hit in hits}


def organisation_screen(
    *,
    organisation: Organisation,
    actor: User | None = None,
    trigger: str = "manual",
    threshold: Decimal | None = None,
) -> Screening:
    threshold = threshold or default_threshold()
    names = organisation_names(organisation)
    hits, versions = find_hits(names, organisation.country, threshold)
    return screening_record(
        names=names,
        country=organisation.country,
        threshold=threshold,
        hits=hits,
        versions=versions,
        organisation=organisation,
        actor=actor,
        trigger=trigger,
    )


def adhoc_screen(
    *, names: list[str], country: str = "", threshold: Decimal | None = None, actor: User | None = None
) -> Screening:
    """Screen names that belong to no organisation (a partner's or an officer's check before
    onboarding a party). The hits are recorded for the record, never reviewed."""
    names = [n.strip() for n in names if n and n.strip()]
    if not names:
        raise ValidationError({"name": "Give a name to screen."})
    threshold = threshold or default_threshold()
    if not Decimal("0.5") <= threshold <= Decimal("1"):
        raise ValidationError({"threshold": "Use a threshold between 0.5 (high recall) and 1.0 (exact)."})
    active = active_index()
    hits = active.index.search(names, country=country or None, threshold=float(threshold))
    return screening_record(
        names=names,
        country=country,
        threshold=threshold,
        hits=hits,
        versions=active.versions,
        organisation=None,
        actor=actor,
        trigger="ad_hoc",
        active=active,
    )


def rescreen_all(*, actor: User | None = None, progress=None) -> int:
    organisations = list(Organisation.objects.filter(is_active=True).order_by("pk"))
    for n, organisation in enumerate(organisations, start=1):
        organisation_screen(organisation=organisation, actor=actor, trigger="list_update")
        if progress and (n % 25 == 0 or n == len(organisations)):
            progress(
                int(n * 100 / max(len(organisations), 1)), f"{n} of {len(organisations)} parties screened"
            )
    return len(organisations)


# --- review ------------------------------------------------------------------------------------


@transaction.atomic
def hit_clearance_apply(*, hit: ScreeningHit, actor: User, reason: str) -> ScreeningHit:
    """A false positive, decided (`approvals.hit_clear` is the only caller: one officer asks, a
    second approves while four eyes is on; `actor` is the officer who judged it). It is not raised
    again for this entry until the entry changes; the shipments' hold reasons it raised are resolved
    by the hold reasons listening for the decision (`HitDecided`)."""
    hit = _decide(hit, actor, reason, HitStatus.CLEARED)
    decided(HitDecided(hit=hit, actor=actor))
    return hit


@transaction.atomic
def hit_confirm(*, hit: ScreeningHit, actor: User, reason: str) -> ScreeningHit:
    """A true match: the screened organisation is blocked; shipments naming it are held. Only
    reversing the match (`block_lift_request`, `block_lift_approve`) lifts the block."""
    hit = _decide(hit, actor, reason, HitStatus.CONFIRMED)
    PartyBlock(
        organisation_id=hit.organisation_id,
        hit=hit,
        list_kind=hit.entry.list_kind,
        reason=reason.strip(),
    ).save()
    decided(HitDecided(hit=hit, actor=actor))
    return hit


def hit_open_for_decision(hit: ScreeningHit) -> ScreeningHit:
    """The hit, locked, if it may still be decided: an organisation's hit not decided yet."""
    hit = (
        ScreeningHit.objects.select_for_update(of=("self",))
        .select_related("entry", "screening", "organisation")
        .get(pk=hit.pk)
    )
    if hit.organisation_id is None:
        raise ValidationError(
            {"status": "The hits of an ad hoc screening are not reviewed; screen the organisation itself."}
        )
    if hit.status != HitStatus.OPEN:
        raise ValidationError(
            {"status": f"This hit was already decided ({hit.get_status_display().lower()})."}
        )
    return hit


def _decide(hit: ScreeningHit, actor: User, reason: str, status: str) -> ScreeningHit:
    if not (reason or "").strip():
        raise ValidationError({"reason": "A reason is required."})
    hit = hit_open_for_decision(hit)
    hit.status, hit.decided_by, hit.decided_at, hit.decision_reason = (
        status,
        actor,
        timezone.now(),
        reason.strip(),
    )
    hit.save(update_fields=["status", "decided_by", "decided_at", "decision_reason", "updated_at"])
    Screening.objects.filter(pk=hit.screening_id).update(
        open_hit_count=hit.screening.hits.filter(status=HitStatus.OPEN).count()
    )
    record_transition(
        hit.organisation,
        field=f"screening hit {hit.pk}",
        before=HitStatus.OPEN,
        after=status,
        reason=reason.strip(),
        actor=actor,
    )
    return hit


# --- the review queue (reads) --------------------------------------------------------------------


def review_queue(*, status: str | None = HitStatus.OPEN) -> QuerySet[ScreeningHit]:
    """Hits of organisations' screenings (never ad hoc ones) in `status` (any with None), once
    per organisation and listed entry: the latest such hit. (Open hits are one per organisation
    and entry anyway; a party screened ten times has ten duplicates, shown once.)"""
    hits = ScreeningHit.objects.filter(organisation__isnull=False)
    if status:
        hits = hits.filter(status=status)
    later = ScreeningHit.objects.filter(
        organisation=OuterRef("organisation"),
        list_entry_id=OuterRef("list_entry_id"),
        status=OuterRef("status"),
        pk__gt=OuterRef("pk"),
    )
    return hits.filter(~Exists(later)).select_related("entry", "organisation")


@dataclass
class PartyShipment:
    """A shipment naming a screened organisation, and the roles the organisation plays in it."""

    reference: str
    status: str
    roles: list[str] = field(default_factory=list)

    @property
    def status_label(self) -> str:
        return ShipmentStatus(self.status).label

    @property
    def role_labels(self) -> list[str]:
        return [PartyRole(role).label for role in self.roles]


def attach_shipments(hits: list[ScreeningHit]) -> list[ScreeningHit]:
    """Set `shipments` on each hit: the shipments still under way (not delivered or cancelled)
    that name the hit's organisation, with its roles in each. One query for all the hits."""
    org_ids = {hit.organisation_id for hit in hits if hit.organisation_id}
    by_org: dict[int, dict[str, PartyShipment]] = {}
    if org_ids:
        parties = (
            ShipmentParty.objects.filter(organisation_id__in=org_ids)
            .exclude(shipment__status__in=[str(status) for status in TERMINAL])
            .order_by("shipment__reference", "role")
            .values_list("organisation_id", "shipment__reference", "shipment__status", "role")
        )
        for org_id, reference, status, role in parties:
            shipments = by_org.setdefault(org_id, {})
            shipments.setdefault(reference, PartyShipment(reference, status)).roles.append(role)
    for hit in hits:
        hit.shipments = list(by_org.get(hit.organisation_id, {}).values())
    return hits


# --- blocks: lifting one means reversing the confirmed match -------------------------------------
# Asking for a lift and approving it are four-eyes decisions (services.approvals); the block's
# lift_requested_* fields show the request waiting, for the organisation's page and API.


def block_lift_apply(block: PartyBlock, actor: User) -> None:
    """Lift `block` (locked, with its lift reason set) now that the decision is taken: the confirmed
    hit becomes reversed and the shipments naming the party are checked again (`block_lifted`)."""
    now = timezone.now()
    block.lifted_by, block.lifted_at = actor, now
    block.save(update_fields=["lifted_by", "lifted_at"])
    record_transition(
        block, field="lift", before="lift_requested", after="lifted", reason=block.lift_reason, actor=actor
    )
    hit = ScreeningHit.objects.select_for_update().get(pk=block.hit_id)
    if hit.status == HitStatus.CONFIRMED:
        # The hit's decision becomes the reversal (who confirmed it, and why, stays in the block
        # and the audit log): as cleared, it is not raised again until the entry changes.
        hit.status, hit.decided_by, hit.decided_at, hit.decision_reason = (
            HitStatus.REVERSED,
            actor,
            now,
            block.lift_reason,
        )
        hit.save(update_fields=["status", "decided_by", "decided_at", "decision_reason", "updated_at"])
        record_transition(
            block.organisation,
            field=f"screening hit {hit.pk}",
            before=HitStatus.CONFIRMED,
            after=HitStatus.REVERSED,
            reason=block.lift_reason,
            actor=actor,
        )
    decided(BlockLifted(block=block, actor=actor))
