import django_filters
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import OrganisationKind
from apps.catalog.models import Part
from apps.core.api import AuditHistoryMixin, OrgScopedViewSetMixin
from apps.core.jsonable import jsonable
from apps.core.models import TaskRecord
from apps.core.scoping import CHANGE
from apps.shipments.models import Shipment

from .. import services
from ..engines.countries import UnknownCountryError, chart_marks_for, groups_of
from ..engines.determination import EndUser, determine
from ..models import (
    ApprovalKind,
    CheckLineResult,
    ComplianceApproval,
    ComplianceCheck,
    HitStatus,
    HoldReason,
    Licence,
    PartClassification,
    PartyBlock,
    Screening,
    ScreeningHit,
    ScreeningList,
)
from . import schema
from .serializers import (
    AdHocScreeningSerializer,
    ApprovalRejectSerializer,
    ApprovalRequestSerializer,
    ApprovalSerializer,
    BlockLiftRequestSerializer,
    BlockLiftWithdrawSerializer,
    ClassificationSerializer,
    ClassifyRunSerializer,
    ComplianceCheckSerializer,
    DecisionSerializer,
    DeterminationRequestSerializer,
    HoldReasonSerializer,
    LicenceSerializer,
    OverrideSerializer,
    PartyBlockSerializer,
    QueueHitSerializer,
    ResolveSerializer,
    ScreeningListImportSerializer,
    ScreeningListSerializer,
    ScreeningSerializer,
)


def visible_licence_ids(user) -> set[int] | None:
    """None for operator staff (they see every licence); else the ids of licences naming the
    user's organisation, so a check result never shows another organisation's licence."""
    if user.is_operator_staff:
        return None
    return set(Licence.objects.visible_to(user).values_list("pk", flat=True))


def _visible_part(request, part):
    return get_object_or_404(Part.objects.visible_to(request.user), pk=part.pk)


@schema.classification_docs
class ClassificationViewSet(
    AuditHistoryMixin, OrgScopedViewSetMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet
):
    """ECCN classifications of parts, with reasoning and history. POST overrides (compliance officers)."""

    queryset = PartClassification.objects.select_related("part", "created_by")
    serializer_class = ClassificationSerializer
    filterset_fields = ["part", "eccn", "source", "is_current", "is_complete"]
    ordering_fields = ["created_at", "eccn"]
    capabilities = {"read": "compliance.view", "write": "compliance.review", "run": "compliance.run"}

    def get_queryset(self):
        return self.get_base_queryset().visible_to(self.request.user)

    @extend_schema(
        request=OverrideSerializer, responses={201: ClassificationSerializer, 202: ApprovalSerializer}
    )
    def create(self, request, *args, **kwargs):
        """A compliance officer's classification. One that lowers control, or confirms a category
        default, waits for a second officer (four eyes): 202 with the pending request."""
        data = OverrideSerializer(data=request.data, context=self.get_serializer_context())
        data.is_valid(raise_exception=True)
        part = _visible_part(request, data.validated_data["part"])
        row = services.part_classification_override(
            part=part,
            eccn=data.validated_data["eccn"],
            reason=data.validated_data["reason"],
            actor=request.user,
        )
        if isinstance(row, ComplianceApproval):
            return Response(ApprovalSerializer(row).data, status=status.HTTP_202_ACCEPTED)
        return Response(
            ClassificationSerializer(row, context=self.get_serializer_context()).data,
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(request=ClassifyRunSerializer, responses=ClassificationSerializer)
    @action(detail=False, methods=["post"])
    def run(self, request):
        """Run the classification engine on a part now."""
        data = ClassifyRunSerializer(data=request.data, context=self.get_serializer_context())
        data.is_valid(raise_exception=True)
        row = services.part_classify(
            part=_visible_part(request, data.validated_data["part"]), actor=request.user
        )
        return Response(ClassificationSerializer(row, context=self.get_serializer_context()).data)


@schema.determination_docs
class DeterminationView(APIView):
    """Licence determination for an ECCN, destination, end user and end use, with every rule that fired."""

    capabilities = {"read": "compliance.view", "write": "compliance.view"}

    @extend_schema(
        request=DeterminationRequestSerializer,
        responses=inline_serializer(
            "Determination",
            {
                "outcome": serializers.CharField(
                    help_text="NLR, licence_exception, licence_required or prohibited."
                ),
                "exception": serializers.CharField(
                    allow_null=True, help_text="The licence exception, if any."
                ),
                "exception_code": serializers.CharField(allow_null=True),
                "conditions": serializers.ListField(child=serializers.CharField()),
                "rules": inline_serializer(
                    "DeterminationRule",
                    {
                        "code": serializers.CharField(),
                        "text": serializers.CharField(),
                        "effect": serializers.CharField(
                            help_text="licence_required, prohibited, exception_available, no_licence or note."
                        ),
                    },
                    many=True,
                ),
                "eccn": serializers.CharField(),
                "destination": serializers.CharField(),
                "rule_version": serializers.CharField(),
            },
        ),
    )
    def post(self, request):
        data = DeterminationRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        end_user = None
        if v.get("end_user_country") or v["entity_list"] or v["denied_persons"] or v["unverified_list"]:
            end_user = EndUser(
                name=v["end_user_name"],
                country=v.get("end_user_country") or v["destination"],
                headquarters_country=v.get("end_user_headquarters"),
                entity_list=v["entity_list"],
                denied_persons=v["denied_persons"],
                unverified_list=v["unverified_list"],
                listed_entry=v["list_entry"].strip(),
            )
        try:
            result = determine(
                v["eccn"].strip(),
                v["destination"].upper(),
                data=services.active_country_data(),
                end_user=end_user,
                end_use_flags=v["end_use_flags"],
                temporary=v["temporary"],
                tpp=v.get("tpp"),
                data_centre=v["data_centre"],
            )
        except UnknownCountryError as exc:
            return Response({"destination": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        except ValueError as exc:
            return Response({"eccn": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(jsonable(result))


@schema.country_docs
class CountryView(APIView):
    """EAR country groups and chart marks of a country, from the active data edition."""

    capabilities = {"read": "compliance.view", "write": "compliance.review"}

    @extend_schema(
        responses=inline_serializer(
            "CountryGroups",
            {
                "country": serializers.CharField(),
                "name": serializers.CharField(),
                "as_of": serializers.DateField(help_text="Date of the EAR data edition."),
                "groups": serializers.ListField(child=serializers.CharField()),
                "chart_marks": serializers.ListField(child=serializers.CharField()),
                "embargoed": serializers.BooleanField(),
            },
        )
    )
    def get(self, request, code):
        data = services.active_country_data()
        code = code.upper()
        if code not in data.names and code not in getattr(data, "chart_row_for", {}):
            return Response(
                {"detail": f"{code} is not a country in the EAR data of {data.as_of}."},
                status=status.HTTP_404_NOT_FOUND,
            )
        return Response(
            {
                "country": code,
                "name": data.names.get(code, code),
                "as_of": data.as_of.isoformat(),
                "groups": groups_of(data, code),
                "chart_marks": sorted(chart_marks_for(data, code)),
                "embargoed": code in data.embargoed,
            }
        )


@schema.licence_docs
class LicenceViewSet(AuditHistoryMixin, OrgScopedViewSetMixin, viewsets.ModelViewSet):
    """Licences held, with what is left of them. Partners see licences naming them."""

    queryset = Licence.objects.select_related("licensee", "consignee", "end_user")
    serializer_class = LicenceSerializer
    filterset_fields = ["licensee", "consignee", "end_user"]
    search_fields = ["number", "eccns", "destination_countries"]
    ordering_fields = ["expires_on", "number", "valid_from"]
    capabilities = {"read": "compliance.view", "write": "compliance.review"}

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if self.action in ("list", "retrieve"):
            page = (
                self.paginate_queryset(self.filter_queryset(self.get_queryset()))
                if self.action == "list"
                else None
            )
            context["remaining"] = services.remaining(page if page is not None else list(self.get_queryset()))
        return context

    def perform_create(self, serializer):
        serializer.instance = services.licence_save(
            licence=Licence(), fields=serializer.validated_data, actor=self.request.user
        )

    def perform_update(self, serializer):
        serializer.instance = services.licence_save(
            licence=serializer.instance, fields=serializer.validated_data, actor=self.request.user
        )

    @extend_schema(responses=inline_serializer("Drawdowns", {"results": serializers.JSONField()}))
    @action(detail=True, methods=["get"])
    def drawdowns(self, request, pk=None):
        from .serializers import DrawdownSerializer

        licence = self.get_object()
        rows = licence.drawdowns.select_related("line__shipment")
        return Response({"results": DrawdownSerializer(rows, many=True).data})


@schema.screening_list_docs
class ScreeningListViewSet(AuditHistoryMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Imported editions of screening lists. POST a file (multipart) to import a new edition."""

    queryset = ScreeningList.objects.all()
    serializer_class = ScreeningListSerializer
    filterset_fields = ["name", "is_active", "source_format"]
    ordering_fields = ["imported_at", "version"]
    parser_classes = [MultiPartParser, FormParser]
    capabilities = {"read": "compliance.view", "write": "compliance.review"}

    @extend_schema(request=ScreeningListImportSerializer, responses={201: ScreeningListSerializer})
    def create(self, request, *args, **kwargs):
        data = ScreeningListImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        screening_list = services.screening_list_import(
            name=v["name"],
            source_format=v["source_format"],
            data=v["file"].read(),
            version=v["version"],
            actor=request.user,
        )
        return Response(ScreeningListSerializer(screening_list).data, status=status.HTTP_201_CREATED)


@schema.screening_docs
class ScreeningViewSet(OrgScopedViewSetMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Screen a name ad hoc against the active lists; your organisation's screenings are listed here."""

    queryset = Screening.objects.prefetch_related(
        Prefetch("hits", queryset=ScreeningHit.objects.select_related("entry", "organisation"))
    )
    serializer_class = ScreeningSerializer
    filterset_fields = ["trigger", "country"]
    ordering_fields = ["created_at", "hit_count"]
    capabilities = {"read": "compliance.view", "write": "screening.adhoc"}

    def get_queryset(self):
        return self.get_base_queryset().visible_to(self.request.user)

    @extend_schema(request=AdHocScreeningSerializer, responses={201: ScreeningSerializer})
    def create(self, request, *args, **kwargs):
        data = AdHocScreeningSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        screening = services.adhoc_screen(
            names=[v["name"], *v["aliases"]],
            country=v["country"],
            threshold=v.get("threshold"),
            actor=request.user,
        )
        # The screening comes back with its hits and their entries in memory: nothing to re-read.
        return Response(ScreeningSerializer(screening).data, status=status.HTTP_201_CREATED)


class ScreeningHitFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(
        choices=HitStatus.choices, help_text="Default: open (awaiting review)."
    )

    class Meta:
        model = ScreeningHit
        fields = ["status", "organisation"]


@schema.screening_hit_docs
class ScreeningHitViewSet(viewsets.ReadOnlyModelViewSet):
    """The review queue: organisations' potential matches awaiting a compliance officer's decision,
    once per organisation and listed entry, with the shipments under way that name the
    organisation. Ad hoc screenings' hits are not reviewed and not listed."""

    queryset = ScreeningHit.objects.filter(organisation__isnull=False).select_related("entry", "organisation")
    serializer_class = QueueHitSerializer
    filterset_class = ScreeningHitFilter
    ordering_fields = ["score", "created_at"]
    capabilities = {"read": "compliance.review", "write": "compliance.review"}

    def get_queryset(self):
        if self.action == "list":
            # Open hits unless another status is asked for; the filter applies the one asked for.
            return services.review_queue(status=self.request.query_params.get("status") or HitStatus.OPEN)
        return super().get_queryset()

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        return services.attach_shipments(page) if page is not None else None

    def retrieve(self, request, *args, **kwargs):
        hit = services.attach_shipments([self.get_object()])[0]
        return Response(self.get_serializer(hit).data)

    def _decided(self, decide, request):
        data = DecisionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hit = decide(hit=self.get_object(), actor=request.user, reason=data.validated_data["reason"])
        return Response(self.get_serializer(services.attach_shipments([hit])[0]).data)

    @extend_schema(request=DecisionSerializer, responses={200: QueueHitSerializer, 202: QueueHitSerializer})
    @action(detail=True, methods=["post"])
    def clear(self, request, pk=None):
        """Ask to clear a false positive (reason required). Clearing lets the shipments it held move
        on, so it is a compliance officer's decision (an administrator: 403) and, while four eyes is
        on, waits for a second officer: 202 with the hit still `open` and a pending
        `/compliance-approvals/` request of kind `hit_clearance`. With four eyes off: 200, cleared;
        not raised again for this entry until it changes, and the hold reasons it raised are
        resolved with it."""
        answer = self._decided(services.hit_clear, request)
        if answer.data["status"] == HitStatus.OPEN:
            answer.status_code = status.HTTP_202_ACCEPTED
        return answer

    @extend_schema(request=DecisionSerializer, responses=QueueHitSerializer)
    @action(detail=True, methods=["post"])
    def confirm(self, request, pk=None):
        """A true match: the party is blocked and its shipments are held, until the match is reversed
        (`/party-blocks/{id}/request-lift/`)."""
        return self._decided(services.hit_confirm, request)


class PartyBlockFilter(django_filters.FilterSet):
    active = django_filters.BooleanFilter(
        field_name="lifted_at", lookup_expr="isnull", help_text="true: blocks in force; false: lifted ones."
    )
    lift_requested = django_filters.BooleanFilter(
        field_name="lift_requested_at",
        lookup_expr="isnull",
        exclude=True,
        help_text="true: a lift was requested.",
    )

    class Meta:
        model = PartyBlock
        fields = ["organisation", "list_kind", "active", "lift_requested"]


@schema.party_block_docs
class PartyBlockViewSet(AuditHistoryMixin, viewsets.ReadOnlyModelViewSet):
    """Parties blocked by a confirmed screening match. A block is lifted only by reversing the
    match: one compliance officer requests it with a reason, a second one approves (four eyes,
    unless the operator organisation has switched that off)."""

    queryset = PartyBlock.objects.select_related(
        "organisation", "hit__entry", "lift_requested_by", "lifted_by"
    )
    serializer_class = PartyBlockSerializer
    filterset_class = PartyBlockFilter
    ordering_fields = ["created_at", "lift_requested_at"]
    capabilities = {"read": "compliance.review", "write": "compliance.review"}

    def get_serializer_context(self):
        context = super().get_serializer_context()
        organisation = self.request.user.organisation if self.request.user.is_authenticated else None
        if organisation is not None and organisation.kind == OrganisationKind.OPERATOR:
            # The operator's policy, loaded with the officer: no query for it.
            context["needs_second_officer"] = organisation.compliance_four_eyes
        return context

    def _answer(self, block):
        return Response(self.get_serializer(self.get_queryset().get(pk=block.pk)).data)

    @extend_schema(request=BlockLiftRequestSerializer, responses=PartyBlockSerializer)
    @action(detail=True, methods=["post"], url_path="request-lift")
    def request_lift(self, request, pk=None):
        """Ask to lift the block by reversing the confirmed match (reason required). With four eyes
        off, the block is lifted at once."""
        data = BlockLiftRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        block = services.block_lift_request(
            block=self.get_object(), actor=request.user, reason=data.validated_data["reason"]
        )
        return self._answer(block)

    @extend_schema(request=None, responses=PartyBlockSerializer)
    @action(detail=True, methods=["post"], url_path="approve-lift")
    def approve_lift(self, request, pk=None):
        """Approve another officer's lift request: the block is lifted and the match reversed."""
        return self._answer(services.block_lift_approve(block=self.get_object(), actor=request.user))

    @extend_schema(request=BlockLiftWithdrawSerializer, responses=PartyBlockSerializer)
    @action(detail=True, methods=["post"], url_path="withdraw-lift")
    def withdraw_lift(self, request, pk=None):
        """Withdraw your lift request, or refuse another officer's (reason required); the block stays."""
        data = BlockLiftWithdrawSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        block = services.block_lift_withdraw(
            block=self.get_object(), actor=request.user, reason=data.validated_data["reason"]
        )
        return self._answer(block)


@schema.approval_docs
class ApprovalViewSet(
    AuditHistoryMixin, OrgScopedViewSetMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet
):
    """Four-eyes decisions: a classification override that lowers control, confirming a default
    classification, releasing a compliance hold, lifting a block and switching four eyes off or
    on. One compliance officer asks (POST); another of the same organisation approves or rejects;
    until then nothing takes effect ("Awaiting second officer"). Administrators are not compliance
    officers: they read the list, they neither ask nor decide."""

    queryset = ComplianceApproval.objects.select_related(
        "requested_by",
        "decided_by",
        "part__manufacturer",
        "shipment",
        "block__organisation",
        "hit__entry",
        "hit__organisation",
    )
    serializer_class = ApprovalSerializer
    filterset_fields = ["status", "kind", "part"]
    ordering_fields = ["requested_at", "decided_at"]
    capabilities = {"read": "compliance.review", "write": "compliance.decide"}

    @extend_schema(request=ApprovalRequestSerializer, responses={201: ApprovalSerializer})
    def create(self, request, *args, **kwargs):
        data = ApprovalRequestSerializer(data=request.data, context=self.get_serializer_context())
        data.is_valid(raise_exception=True)
        approval = _ask(request.user, data.validated_data)
        return Response(self._answer(approval), status=status.HTTP_201_CREATED)

    def _answer(self, approval) -> dict:
        return self.get_serializer(self.get_base_queryset().get(pk=approval.pk)).data

    @extend_schema(request=None, responses=ApprovalSerializer)
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        """Approve another officer's request: the decision takes effect now. Your own: 403."""
        return Response(
            self._answer(services.approval_approve(approval=self.get_object(), actor=request.user))
        )

    @extend_schema(request=ApprovalRejectSerializer, responses=ApprovalSerializer)
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        """Reject another officer's request, saying why: nothing changes."""
        data = ApprovalRejectSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        approval = services.approval_reject(
            approval=self.get_object(), actor=request.user, reason=data.validated_data["reason"]
        )
        return Response(self._answer(approval))

    @extend_schema(request=None, responses=ApprovalSerializer)
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        """Withdraw your own request: nothing changes."""
        return Response(
            self._answer(services.approval_withdraw(approval=self.get_object(), actor=request.user))
        )


def _ask(user, data: dict) -> ComplianceApproval:
    """Route a request to the service of its kind; subjects are looked up in the user's scope,
    so another organisation's is "not found" (400 naming the field)."""
    kind, reason = data["kind"], data["reason"]
    if kind == ApprovalKind.CLASSIFICATION_OVERRIDE:
        return services.classification_decision(
            part=data["part"], eccn=data["eccn"], reason=reason, actor=user
        )
    if kind == ApprovalKind.DEFAULT_CONFIRMATION:
        hold = _operator_record(user, HoldReason, data["hold_reason"], "hold_reason")
        hold = services.hold_reason_resolve(hold=hold, actor=user, resolution=reason)
        return hold.pending_approval or ComplianceApproval.objects.filter(hold_reason=hold).latest("id")
    if kind == ApprovalKind.HOLD_RELEASE:
        shipment = Shipment.objects.visible_to(user, CHANGE).filter(reference=data["shipment"]).first()
        if shipment is None:
            raise DRFValidationError({"shipment": f"No shipment {data['shipment']} that you may change."})
        return services.compliance_hold_release_request(shipment=shipment, actor=user, reason=reason)
    if kind == ApprovalKind.HIT_CLEARANCE:
        hit = _operator_record(user, ScreeningHit, data["hit"], "hit")
        services.hit_clear(hit=hit, actor=user, reason=reason)
        return ComplianceApproval.objects.filter(hit=hit).latest("id")
    if kind == ApprovalKind.BLOCK_LIFT:
        block = _operator_record(user, PartyBlock, data["block"], "block")
        services.block_lift_request(block=block, actor=user, reason=reason)
        return ComplianceApproval.objects.filter(block=block).latest("id")
    return services.four_eyes_policy_request(
        organisation=user.organisation, actor=user, on=data["four_eyes"], reason=reason
    )


def _operator_record(user, model, pk: int, field: str):
    """A hold reason, a block or a screening hit: the operator's staff's records (the review queue's)."""
    found = model.objects.filter(pk=pk).first() if user.is_operator_staff else None
    if found is None:
        raise DRFValidationError({field: f'Invalid pk "{pk}" - object does not exist.'})
    return found


@schema.compliance_check_docs
class ComplianceCheckViewSet(OrgScopedViewSetMixin, viewsets.ReadOnlyModelViewSet):
    """Compliance checks of the shipments you can see, with a result per line and party."""

    queryset = ComplianceCheck.objects.select_related("shipment").prefetch_related(
        Prefetch("line_results", queryset=CheckLineResult.objects.select_related("line", "licence")),
        "party_results__organisation",
        "hold_reasons__resolved_by",
    )
    serializer_class = ComplianceCheckSerializer
    filterset_fields = ["result", "shipment__reference"]
    ordering_fields = ["finished_at"]
    capabilities = {"read": "compliance.view", "write": "compliance.run"}

    def get_serializer_context(self):
        context = super().get_serializer_context()
        one_shipment = self.action == "retrieve" or bool(self.request.query_params.get("shipment__reference"))
        return {
            **context,
            "visible_licences": visible_licence_ids(self.request.user),
            "answer_current": one_shipment,
        }


@schema.compliance_check_start_docs
class ComplianceCheckStartView(APIView):
    """Start (or re-run) the compliance check of a shipment; poll the task for progress."""

    capabilities = {"read": "compliance.run", "write": "compliance.run"}

    @extend_schema(
        request=None,
        responses={
            202: inline_serializer(
                "TaskStarted", {"task_id": serializers.CharField(), "status_url": serializers.CharField()}
            )
        },
    )
    def post(self, request, shipment_reference):
        shipment = get_object_or_404(
            Shipment.objects.visible_to(request.user, CHANGE), reference=shipment_reference
        )
        task_id = services.compliance_check_start(shipment=shipment, actor=request.user)
        return Response(
            {"task_id": task_id, "status_url": f"/api/v1/tasks/{task_id}/"}, status=status.HTTP_202_ACCEPTED
        )


@schema.hold_reason_docs
class HoldReasonViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = HoldReason.objects.select_related("resolved_by", "compliance_check__shipment")
    serializer_class = HoldReasonSerializer
    filterset_fields = ["kind"]
    ordering_fields = ["kind", "resolved_at"]
    capabilities = {"read": "compliance.review", "write": "compliance.review"}

    @extend_schema(request=ResolveSerializer, responses=HoldReasonSerializer)
    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        """Resolve one reason; when none is left the shipment's compliance hold is released. A
        default classification's reason stays open until a second compliance officer approves the
        confirmation (four eyes: see `/compliance-approvals/`)."""
        data = ResolveSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hold = services.hold_reason_resolve(
            hold=self.get_object(),
            actor=request.user,
            resolution=data.validated_data["resolution"],
            licence_number=data.validated_data["licence_number"],
        )
        return Response(HoldReasonSerializer(hold, context=self.get_serializer_context()).data)


@schema.task_docs
class TaskStatusView(APIView):
    """State and progress of a background task you (or your organisation) started."""

    capabilities = {"read": "tasks.view", "write": "tasks.view"}

    @extend_schema(
        responses=inline_serializer(
            "TaskStatus",
            {
                "task_id": serializers.CharField(),
                "kind": serializers.CharField(),
                "object": serializers.CharField(),
                "object_url": serializers.CharField(),
                "state": serializers.ChoiceField(
                    ["QUEUED", "STARTED", "PROGRESS", "SUCCESS", "FAILURE", "STALLED"],
                    help_text="QUEUED: waiting for the background worker (`owed`: not even handed "
                    "to the task queue yet, it will be); STALLED: no sign of life for longer than "
                    "the task's time limit, the worker may have stopped — run it again.",
                ),
                "message": serializers.CharField(help_text="The state in words."),
                "owed": serializers.BooleanField(),
                "stale": serializers.BooleanField(),
                "percent": serializers.IntegerField(),
                "step": serializers.CharField(),
                "result": serializers.JSONField(allow_null=True),
                "error": serializers.CharField(allow_null=True),
            },
        )
    )
    def get(self, request, task_id):
        return Response(task_status(request.user, task_id))


def task_status(user, task_id: str) -> dict:
    """The task's state from its record (owed, queued, running, stalled, done, failed), which
    workers keep up to date: it answers while the broker and result store are down."""
    from django.http import Http404

    from apps.core.tasks_outbox import task_progress

    record = TaskRecord.objects.filter(task_id=task_id).first()
    if record is None or not (user.is_operator_staff or record.organisation_id == user.organisation_id):
        raise Http404
    return task_progress(record)
