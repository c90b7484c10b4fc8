"""Who signs each trade document, and in what capacity.

A declaration is signed by a person of the party that makes it, never by whoever happens to
generate the PDF:

- commercial invoice, packing list, certificate of origin: the seller / exporter (the shipper);
- shipper's letter of instruction and EEI summary: the USPPI (the shipper);
- end-user statement: the ultimate consignee (the end user), countersigned by the purchaser
  (the consignee);
- IOR authorisation: the party that owes the import duties under the Incoterm (the seller under
  DDP, otherwise the buyer) appoints the importer of record, which countersigns to accept;
- EOR authorisation: the seller appoints the exporter of record, which countersigns to accept.

A party signs through its authorised signatory: a contact of the organisation marked
`is_signatory` (with a job title; its primary contact first, then by name). The document names
that person and leaves the line for a wet-ink or electronic signature. A declaration whose party
names no signatory is not generated (`signature_problems`); an acceptance by an IOR/EOR without
one is left for its signer to fill in by hand.

Agent authority: the operator (the organisation of kind "operator") signs "for and on behalf of"
the seller, as its authorised agent, only the seller's export declarations (invoice, packing
list, SLI, certificate of origin, EEI summary), and only once the seller has appointed the
operator as exporter of record for this shipment: the shipment's EOR authorisation is issued
(Rackpass issues the letter once the Principal has signed it) with the seller as Principal and
the operator as Exporter of Record; the letter authorises its exporter of record to sign those
documents. The operator's user who generates the document then signs, naming the letter. An
IOR authorisation would give the same authority over import declarations; none of the documents
here is one (the importer of record files the bill of entry in its own name), so it gives none.
The end-user statement and the authorisation letters themselves are never signed by an agent.
"""

from __future__ import annotations

from django.urls import reverse

from apps.accounts.models import Contact, Organisation, OrganisationKind, User
from apps.shipments.engines.incoterms import rule as incoterm_rule
from apps.shipments.models import PartyRole, Shipment

from .context import Problem, SignatureBlock
from .models import Document, DocumentStatus, DocumentType

# The seller's export declarations, which its exporter of record may sign as its agent.
EXPORT_DECLARATIONS = frozenset(
    {
        DocumentType.COMMERCIAL_INVOICE,
        DocumentType.PACKING_LIST,
        DocumentType.SLI,
        DocumentType.CERTIFICATE_OF_ORIGIN,
        DocumentType.EEI_SUMMARY,
    }
)


def declarant(
    shipment: Shipment, doc_type: str, parties: dict[str, Organisation]
) -> tuple[str, Organisation | None]:
    """The role and the organisation that make (sign) the document."""
    if doc_type == DocumentType.END_USER_STATEMENT:
        role = (
            PartyRole.ULTIMATE_CONSIGNEE if PartyRole.ULTIMATE_CONSIGNEE in parties else PartyRole.CONSIGNEE
        )
    elif doc_type == DocumentType.IOR_AUTHORISATION:
        seller_pays = incoterm_rule(shipment.incoterm).duties_paid_by == "seller"
        role = PartyRole.SHIPPER if seller_pays else PartyRole.CONSIGNEE
    else:
        role = PartyRole.SHIPPER
    return role, parties.get(role)


def _countersigner(doc_type: str, parties: dict[str, Organisation]) -> tuple[str, Organisation | None]:
    """Who else signs: the purchaser of an end-user statement, the IOR/EOR accepting its letter."""
    role = {
        DocumentType.END_USER_STATEMENT: PartyRole.CONSIGNEE,
        DocumentType.IOR_AUTHORISATION: PartyRole.IMPORTER_OF_RECORD,
        DocumentType.EOR_AUTHORISATION: PartyRole.EXPORTER_OF_RECORD,
    }.get(doc_type, "")
    return role, parties.get(role) if role else None


def signatory_of(organisation: Organisation) -> Contact | None:
    """The organisation's authorised signatory (from prefetched contacts when loaded)."""
    return next((c for c in organisation.contacts.all() if c.is_signatory and c.job_title), None)


def _operator() -> Organisation | None:
    return Organisation.objects.filter(kind=OrganisationKind.OPERATOR).first()


def agent_authority(shipment: Shipment, doc_type: str, party: Organisation | None) -> str:
    """The authorisation under which the operator may sign `doc_type` for `party`, or "".

    Only the seller's export declarations, and only under an issued EOR authorisation of this
    shipment in which the party appoints the operator (see the module's docstring)."""
    if party is None or doc_type not in EXPORT_DECLARATIONS or party.kind == OrganisationKind.OPERATOR:
        return ""
    letter = (
        Document.objects.filter(
            shipment=shipment, doc_type=DocumentType.EOR_AUTHORISATION, status=DocumentStatus.ISSUED
        )
        .only("number", "version", "data")
        .first()
    )
    if letter is None:
        return ""
    operator = _operator()
    if operator is None:
        return ""
    principal = (letter.data.get("seller") or {}).get("name")
    exporter_of_record = (letter.data.get("exporter_of_record") or {}).get("name")
    if principal != party.legal_name or exporter_of_record != operator.legal_name:
        return ""
    return f"EOR authorisation {letter.number} v{letter.version}"


def _person(actor: User | None) -> tuple[str, str]:
    if actor is None:
        return "", ""
    return actor.get_full_name() or actor.username, actor.get_role_display()


def _own_signature(party: Organisation, actor: User | None) -> SignatureBlock:
    """A person of the party signs: its authorised signatory; the operator's own user when the
    party is the operator; else nobody is named (the lines are filled in by hand)."""
    contact = signatory_of(party)
    if contact is not None:
        name, title = contact.name, contact.job_title
    elif party.kind == OrganisationKind.OPERATOR and actor is not None and actor.organisation_id == party.pk:
        name, title = _person(actor)
    else:
        name, title = "", ""
    return SignatureBlock(
        party=party.legal_name, name=name, title=title, capacity=f"Authorised signatory of {party.legal_name}"
    )


def signature_for(
    shipment: Shipment, doc_type: str, parties: dict[str, Organisation], actor: User | None
) -> SignatureBlock | None:
    """The declarant's signature: the operator's user as agent where the party authorised the
    operator (`agent_authority`), otherwise the party's authorised signatory. None when the
    document names no declarant (the document's problems say so)."""
    _role, party = declarant(shipment, doc_type, parties)
    if party is None:
        return None
    authority = agent_authority(shipment, doc_type, party)
    if authority:
        operator = _operator()
        name, title = (
            _person(actor) if actor is not None and actor.organisation_id == operator.pk else ("", "")
        )
        return SignatureBlock(
            party=party.legal_name,
            name=name,
            title=title,
            capacity=f"{operator.legal_name}, for and on behalf of {party.legal_name} "
            "as its authorised agent",
            mode="agent",
            authority=authority,
        )
    return _own_signature(party, actor)


def countersignature_for(
    shipment: Shipment, doc_type: str, parties: dict[str, Organisation], actor: User | None
) -> SignatureBlock | None:
    """The second signature of an end-user statement (purchaser) or an IOR/EOR letter (acceptance)."""
    _role, party = _countersigner(doc_type, parties)
    return _own_signature(party, actor) if party is not None else None


def signature_problems(shipment: Shipment, doc_type: str, parties: dict[str, Organisation]) -> list[Problem]:
    """A declaration (or a principal's authorisation) whose party names no authorised signatory,
    unless the operator may sign it as the party's agent. The purchaser of an end-user statement
    signs it too; an IOR/EOR's acceptance does not hold the document back."""
    signers = [declarant(shipment, doc_type, parties)]
    if doc_type == DocumentType.END_USER_STATEMENT:
        signers.append(_countersigner(doc_type, parties))
    label = DocumentType(doc_type).label.lower()
    problems, seen = [], set()
    for role, party in signers:
        if party is None or party.pk in seen:
            continue
        seen.add(party.pk)
        if signatory_of(party) is not None or agent_authority(shipment, doc_type, party):
            continue
        if party.kind == OrganisationKind.OPERATOR:
            continue  # the operator's own user signs for it
        problems.append(
            Problem(
                f"{role}.signatory",
                f"Name an authorised signatory of {party.legal_name} (a contact with a job title, "
                f"marked authorised signatory): they sign the {label} for it.",
                reverse("accounts:organisation-detail", args=[party.pk]),
            )
        )
    return problems
