"""One search's page (`/search/?q=`) and API (`GET /api/v1/search/?q=`): the same answer from
`global_search.search`, grouped by kind, best first. The page goes straight to the object when
the query is an exact identifier of exactly one object (`&all=1` lists the results instead);
the API says where in `jump`. Too many or too long terms: a form error on the page, a 400 naming
`q` in the API."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.http import urlencode
from django.views.generic import TemplateView
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from . import global_search
from .access import CapabilityRequiredMixin


class SearchView(CapabilityRequiredMixin, TemplateView):
    capability = "dashboard.view"
    template_name = "core/search.html"

    def get(self, request, *args, **kwargs):
        text = request.GET.get("q", "")
        try:
            query = global_search.parse(text)
        except ValueError as problem:
            return self.render_to_response(self.get_context_data(q=text, error=str(problem), answer=None))
        answer = global_search.search(request.user, query)
        if answer.jump and not request.GET.get("all"):
            messages.info(request, f"“{query.text}” names this one object: opened it directly.")
            return redirect(answer.jump)
        all_url = f"?{urlencode({'q': query.text, 'all': 1})}"
        return self.render_to_response(
            self.get_context_data(
                q=query.text,
                answer=answer,
                too_short=0 < len(query.text) < global_search.MIN_QUERY_LENGTH,
                min_length=global_search.MIN_QUERY_LENGTH,
                all_url=all_url,
            )
        )


class SearchHitSerializer(serializers.Serializer):
    title = serializers.CharField(help_text="The object: a shipment reference, a serial, a part …")
    url = serializers.CharField(help_text="Its page in the browser.")
    detail = serializers.CharField(help_text="What it is, in a line.")
    matched = serializers.CharField(help_text="What matched, e.g. `AWB 618-12345675`, `buyer's order`.")
    rank = serializers.FloatField(
        help_text="Higher is better: 4 equal, 3 starts with, 2 contains (+ similarity)."
    )
    exact = serializers.BooleanField(help_text="An identifier equal to the query.")


class SearchGroupSerializer(serializers.Serializer):
    kind = serializers.CharField(
        help_text="shipments, units, line-serials, parts, documents, licences or designs."
    )
    label = serializers.CharField()
    more = serializers.BooleanField(help_text="More matches than listed: refine the query.")
    hits = SearchHitSerializer(many=True)


class SearchAnswerSerializer(serializers.Serializer):
    q = serializers.CharField(help_text="The query as searched (spaces collapsed).")
    jump = serializers.CharField(
        allow_null=True, help_text="The page of the one object an exact identifier names, else null."
    )
    groups = SearchGroupSerializer(many=True)


EXAMPLE = {
    "q": "618-12345675",
    "jump": "/shipments/SHP-2026-000002/",
    "groups": [
        {
            "kind": "shipments",
            "label": "Shipments",
            "more": False,
            "hits": [
                {
                    "title": "SHP-2026-000002",
                    "url": "/shipments/SHP-2026-000002/",
                    "detail": "Singapore Changi (SIN) → Chennai (MAA) · In transit",
                    "matched": "AWB 618-12345675",
                    "rank": 4.0,
                    "exact": True,
                }
            ],
        }
    ],
}


class SearchApiView(APIView):
    """Find anything the credentials may see by reference, number, serial or name."""

    capabilities = {"read": "dashboard.view", "write": "dashboard.view"}

    @extend_schema(
        tags=["Search"],
        summary="Search shipments, serials, parts, documents, licences and designs",
        description=(
            "Shipments by reference, buyer's order (PO), AWB / B/L, container number, party name and "
            "Incoterm place; units and shipment lines by serial; parts by number or name; documents "
            "and licences by number; cluster designs by name. Only what the credentials may see. "
            f"At most {global_search.PER_KIND} hits per kind, best first; `jump` names the one object "
            "an exact identifier matches. Fewer than 2 characters find nothing."
        ),
        parameters=[
            OpenApiParameter(
                "q",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                required=True,
                description="At most 10 terms of at most 100 characters; every term must match.",
            )
        ],
        responses={200: SearchAnswerSerializer},
        examples=[OpenApiExample("An air waybill", value=EXAMPLE, response_only=True)],
    )
    def get(self, request):
        try:
            query = global_search.parse(request.query_params.get("q", ""))
        except ValueError as problem:
            raise ValidationError({"q": [str(problem)]}) from problem
        answer = global_search.search(request.user, query)
        return Response(SearchAnswerSerializer(global_search.as_dict(answer)).data)
