"""Restricted-party screening: import lists (all or nothing), screen parties, review hits."""

from __future__ import annotations

import threading
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import Organisation, User

from ..models import HitStatus, PartyBlock, Screening, ScreeningHit, ScreeningList, ScreeningListEntry
from ..screening.matcher import Hit, ListEntry, ScreeningIndex
from ..screening.parsers import ParsedList, parse_csl_csv, parse_csl_json, parse_opensanctions_jsonl

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
        if rescreen:
            from ..tasks import rescreen_parties

            transaction.on_commit(lambda: rescreen_parties.delay(actor_id=actor.pk if actor else None))
    invalidate_index()
    return screening_list


def _entry_row(screening_list: ScreeningList, entry: ListEntry) -> ScreeningListEntry:
    return ScreeningListEntry(
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


# --- the index, built once per process per set of active lists ---------------------------------

_index_lock = threading.Lock()
_index_cache: dict[tuple, tuple[ScreeningIndex, dict[str, tuple[int, str]]]] = {}


def invalidate_index() -> None:
    with _index_lock:
        _index_cache.clear()


def active_index() -> tuple[ScreeningIndex, dict[str, tuple[int, str]], list[str]]:
    """The index of every active list's entries, and a map entry_id → (row id, fingerprint)."""
    lists = list(ScreeningList.objects.filter(is_active=True).values_list("pk", "name", "version"))
    key = tuple(lists)
    with _index_lock:
        cached = _index_cache.get(key)
    if cached is None:
        rows = ScreeningListEntry.objects.filter(screening_list__is_active=True).values(
            "pk",
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
            ids[row["entry_id"]] = (row["pk"], row["fingerprint"])
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
    return cached[0], cached[1], [f"{name} {version}" for _, name, version in lists]


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
) -> Screening:
    """Store a screening and its hits. A hit on a list entry cleared before for this organisation
    (and unchanged since) is recorded as previously cleared, not raised again."""
    _, ids, _ = active_index()
    cleared = set()
    if organisation is not None:
        cleared = set(
            ScreeningHit.objects.filter(
                screening__organisation=organisation,
                status=HitStatus.CLEARED,
            ).values_list("entry__entry_id", "entry_fingerprint")
        )
    screening = Screening.objects.create(
        organisation=organisation,
        requested_by_organisation=actor.organisation if actor else None,
        names=names,
        country=country or "",
        threshold=threshold,
        list_versions=versions,
        hit_count=len(hits),
        screened_by=actor,
        trigger=trigger,
    )
    rows = []
    for hit in hits:
        entry_pk, fingerprint = ids[hit.entry_id]
        again = (hit.entry_id, fingerprint) in cleared
        rows.append(
            ScreeningHit(
                screening=screening,
                entry_id=entry_pk,
                entry_fingerprint=fingerprint,
                matched_name=hit.matched_name[:500],
                query_name=hit.query_name[:500],
                score=Decimal(str(round(hit.score, 4))),
                country_match=hit.country_match,
                reasons=list(hit.reasons),
                status=HitStatus.PREVIOUSLY_CLEARED if again else HitStatus.OPEN,
            )
        )
    ScreeningHit.objects.bulk_create(rows)
    screening.open_hit_count = sum(1 for r in rows if r.status == HitStatus.OPEN)
    screening.save(update_fields=["open_hit_count", "updated_at"])
    return screening


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
    names = [n.strip() for n in names if n and n.strip()]
    if not names:
        raise ValidationError({"name": "Give a name to screen."})
    threshold = threshold or default_threshold()
    if not Decimal("0.5") <= threshold <= Decimal("1"):
        raise ValidationError({"threshold": "Use a threshold between 0.5 (high recall) and 1.0 (exact)."})
    hits, versions = find_hits(names, country, threshold)
    return screening_record(
        names=names,
        country=country,
        threshold=threshold,
        hits=hits,
        versions=versions,
        organisation=None,
        actor=actor,
        trigger="ad_hoc",
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
def hit_clear(*, hit: ScreeningHit, actor: User, reason: str) -> ScreeningHit:
    """A false positive. It is not raised again for this entry until the entry changes."""
    return _decide(hit, actor, reason, HitStatus.CLEARED)


@transaction.atomic
def hit_confirm(*, hit: ScreeningHit, actor: User, reason: str) -> ScreeningHit:
    """A true match: the screened organisation is blocked; shipments naming it are held."""
    hit = _decide(hit, actor, reason, HitStatus.CONFIRMED)
    if hit.screening.organisation_id:
        block = PartyBlock(
            organisation_id=hit.screening.organisation_id,
            hit=hit,
            list_kind=hit.entry.list_kind,
            reason=reason.strip(),
        )
        block.save()
    return hit


def _decide(hit: ScreeningHit, actor: User, reason: str, status: str) -> ScreeningHit:
    hit = ScreeningHit.objects.select_for_update().select_related("entry", "screening").get(pk=hit.pk)
    if not (reason or "").strip():
        raise ValidationError({"reason": "A reason is required."})
    if hit.status != HitStatus.OPEN:
        raise ValidationError(
            {"status": f"This hit was already decided ({hit.get_status_display().lower()})."}
        )
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
    from apps.core.audit import record_transition

    record_transition(
        hit.screening.organisation or hit.screening,
        field=f"screening hit {hit.pk}",
        before=HitStatus.OPEN,
        after=status,
        reason=reason.strip(),
        actor=actor,
    )
    return hit
