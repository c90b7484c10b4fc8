"""The breadcrumb trail of a page below the top level (templates/base.html, block `breadcrumbs`).

{% load breadcrumbs %}
{% block breadcrumbs %}{% url 'shipments:shipment-list' as list_url %}
{% breadcrumbs "Shipments" list_url shipment.reference shipment.get_absolute_url "Documents" %}{% endblock %}

Arguments go in pairs, label then address, from the top-level page down; the last one is the
page itself, a label without an address (marked aria-current="page").
"""

from __future__ import annotations

from django import template

register = template.Library()


@register.inclusion_tag("includes/breadcrumbs.html")
def breadcrumbs(*parts) -> dict:
    if len(parts) % 2 != 1:
        raise template.TemplateSyntaxError(
            "breadcrumbs takes label/address pairs and ends with the page's own label"
        )
    links = [{"label": parts[i], "url": parts[i + 1]} for i in range(0, len(parts) - 1, 2)]
    return {"links": links, "current": parts[-1]}
