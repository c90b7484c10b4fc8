"""The page of what a warehouse expects: inbound legs and shipments due there today, this week or
overdue (and those with no date yet), each with its ETA, units, packages, weight and a Receive
button; what arrived in the last week, with when and by whom (`selectors.expected_arrivals`)."""

from __future__ import annotations

import datetime as dt
from itertools import groupby

from django.http import Http404
from django.utils import timezone
from django.views.generic import TemplateView

from apps.core.access import CapabilityRequiredMixin

from ..selectors import EXPECTED_AHEAD_DAYS, ArrivalBucket, expected_arrivals, warehouse_sites


def chosen_site(request, sites: list):
    """The warehouse named by `?site=` among `sites` (another's or an unknown one: 404), or the
    first one."""
    wanted = request.GET.get("site", "").strip()
    if not wanted:
        return sites[0] if sites else None
    site = next((s for s in sites if str(s.pk) == wanted), None)
    if site is None:
        raise Http404("No such warehouse that you may see.")
    return site


class ExpectedView(CapabilityRequiredMixin, TemplateView):
    capability = "stock.view"
    template_name = "warehouse/expected.html"

    def get_context_data(self, **kwargs):
        sites = list(warehouse_sites(self.request.user))
        site = chosen_site(self.request, sites)
        today = timezone.localdate()
        arrivals = expected_arrivals(self.request.user, site, today) if site else []
        labels = dict(ArrivalBucket.choices)
        groups = [
            {"bucket": bucket, "label": labels[bucket], "arrivals": list(rows)}
            for bucket, rows in groupby(arrivals, key=lambda a: a.bucket)
        ]
        return super().get_context_data(
            sites=sites,
            site=site,
            horizon=today + dt.timedelta(days=EXPECTED_AHEAD_DAYS),
            groups=groups,
            count=len(arrivals),
            **kwargs,
        )
