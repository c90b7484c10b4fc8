from celery.result import AsyncResult
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

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
    CheckLineResult,
    ComplianceCheck,
    HoldReason,
    Licence,
    PartClassification,
    Screening,
    ScreeningHit,
    ScreeningList,
)
from .serializers import (
    AdHocScreeningSerializer,
    ClassificationSerializer,
    ClassifyRunSerializer,
    ComplianceCheckSerializer,
    DecisionSerializer,
    DeterminationRequestSerializer,
    HitSerializer,
    HoldReasonSerializer,
    LicenceSerializer,
    OverrideSerializer,
    ResolveSerializer,
    ScreeningListImportSerializer,
    ScreeningListSerializer,
    ScreeningSerializer,
)


def _visible_part(request, part):
    return get_object_or_404(Part.objects.visible_to(request.user), pk=part.pk)


class ClassificationViewSet(OrgScopedViewSetMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """ECCN classifications of parts, with reasoning and history. POST overrides (compliance officers)."""

    queryset = PartClassification.objects.select_related("part", "created_by")
    serializer_class = ClassificationSerializer
    filterset_fields = ["part", "eccn", "source", "is_current", "is_complete"]
    ordering_fields = ["created_at", "eccn"]
    capabilities = {"read": "compliance.view", "write": "compliance.review", "run": "compliance.run"}

    def get_queryset(self):
        return self.get_base_queryset().visible_to(self.request.user)

    @extend_schema(request=OverrideSerializer, responses={201: ClassificationSerializer})
    def create(self, request, *args, **kwargs):
        data = OverrideSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        part = _visible_part(request, data.validated_data["part"])
        row = services.part_classification_override(
            part=part,
            eccn=data.validated_data["eccn"],
            reason=data.validated_data["reason"],
            actor=request.user,
        )
        return Response(ClassificationSerializer(row).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=ClassifyRunSerializer, responses=ClassificationSerializer)
    @action(detail=False, methods=["post"])
    def run(self, request):
        """Run the classification engine on a part now."""
        data = ClassifyRunSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row = services.part_classify(
            part=_visible_part(request, data.validated_data["part"]), actor=request.user
        )
        return Response(ClassificationSerializer(row).data)


class DeterminationView(APIView):
    """Licence determination for an ECCN, destination, end user and end use, with every rule that fired."""

    capabilities = {"read": "compliance.view", "write": "compliance.view"}

    @extend_schema(
        request=DeterminationRequestSerializer,
        responses=inline_serializer(
            "Determination", {"outcome": serializers.CharField(), "rules": serializers.JSONField()}
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


class CountryView(APIView):
    """EAR country groups and chart marks of a country, from the active data edition."""

    capabilities = {"read": "compliance.view", "write": "compliance.review"}

    @extend_schema(
        responses=inline_serializer(
            "CountryGroups", {"country": serializers.CharField(), "groups": serializers.ListField()}
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


class LicenceViewSet(AuditHistoryMixin, OrgScopedViewSetMixin, viewsets.ModelViewSet):
    """Licences held, with what is left of them. Partners see licences naming them."""

    queryset = Licence.objects.select_related("consignee", "end_user")
    serializer_class = LicenceSerializer
    filterset_fields = ["consignee", "end_user"]
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
        serializer.instance = services.licence_save(licence=Licence(), fields=serializer.validated_data)

    def perform_update(self, serializer):
        serializer.instance = services.licence_save(
            licence=serializer.instance, fields=serializer.validated_data
        )

    @extend_schema(responses=inline_serializer("Drawdowns", {"results": serializers.JSONField()}))
    @action(detail=True, methods=["get"])
    def drawdowns(self, request, pk=None):
        from .serializers import DrawdownSerializer

        licence = self.get_object()
        rows = licence.drawdowns.select_related("line__shipment")
        return Response({"results": DrawdownSerializer(rows, many=True).data})


class ScreeningListViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
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


class ScreeningViewSet(OrgScopedViewSetMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Screen a name ad hoc against the active lists; your organisation's screenings are listed here."""

    queryset = Screening.objects.prefetch_related(
        Prefetch("hits", queryset=ScreeningHit.objects.select_related("entry", "screening__organisation"))
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
        fresh = self.queryset.get(pk=screening.pk)
        return Response(ScreeningSerializer(fresh).data, status=status.HTTP_201_CREATED)


class ScreeningHitViewSet(viewsets.ReadOnlyModelViewSet):
    """The review queue: potential matches awaiting a compliance officer's decision."""

    queryset = ScreeningHit.objects.select_related("entry", "screening__organisation")
    serializer_class = HitSerializer
    filterset_fields = ["status"]
    ordering_fields = ["score", "created_at"]
    capabilities = {"read": "compliance.review", "write": "compliance.review"}

    @extend_schema(request=DecisionSerializer, responses=HitSerializer)
    @action(detail=True, methods=["post"])
    def clear(self, request, pk=None):
        """A false positive (reason required); not raised again for this entry until it changes."""
        data = DecisionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hit = services.hit_clear(
            hit=self.get_object(), actor=request.user, reason=data.validated_data["reason"]
        )
        return Response(HitSerializer(hit).data)

    @extend_schema(request=DecisionSerializer, responses=HitSerializer)
    @action(detail=True, methods=["post"])
    def confirm(self, request, pk=None):
        """A true match: the party is blocked and its shipments are held."""
        data = DecisionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hit = services.hit_confirm(
            hit=self.get_object(), actor=request.user, reason=data.validated_data["reason"]
        )
        return Response(HitSerializer(hit).data)


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


class HoldReasonViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = HoldReason.objects.select_related("resolved_by", "compliance_check__shipment")
    serializer_class = HoldReasonSerializer
    filterset_fields = ["kind"]
    capabilities = {"read": "compliance.review", "write": "compliance.review"}

    @extend_schema(request=ResolveSerializer, responses=HoldReasonSerializer)
    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        """Resolve one reason; when none is left the shipment's compliance hold is released."""
        data = ResolveSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hold = services.hold_reason_resolve(
            hold=self.get_object(), actor=request.user, resolution=data.validated_data["resolution"]
        )
        return Response(HoldReasonSerializer(hold).data)


class TaskStatusView(APIView):
    """State and progress of a background task you (or your organisation) started."""

    capabilities = {"read": "tasks.view", "write": "tasks.view"}

    @extend_schema(
        responses=inline_serializer(
            "TaskStatus",
            {
                "task_id": serializers.CharField(),
                "state": serializers.CharField(),
                "percent": serializers.IntegerField(),
                "step": serializers.CharField(),
                "result": serializers.JSONField(),
            },
        )
    )
    def get(self, request, task_id):
        return Response(task_status(request.user, task_id))


def task_status(user, task_id: str) -> dict:
    from django.http import Http404

    record = TaskRecord.objects.filter(task_id=task_id).first()
    if record is None or not (user.is_operator_staff or record.organisation_id == user.organisation_id):
        raise Http404
    result = AsyncResult(task_id)
    state, info = result.state, result.info
    meta = info if isinstance(info, dict) else {}
    percent = 100 if state == "SUCCESS" else int(meta.get("percent", 0))
    return {
        "task_id": task_id,
        "kind": record.kind,
        "object": record.object_repr,
        "object_url": record.object_url,
        "state": state,
        "percent": percent,
        "step": meta.get("step") or meta.get("summary") or "",
        "result": meta if state == "SUCCESS" else None,
        "error": str(info) if state == "FAILURE" else None,
    }
