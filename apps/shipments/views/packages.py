"""The shipment page's packages: packing lines into a package, unpacking one."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from .. import services
from ..forms import PackageForm
from ..models import Package
from .detail import RemoveView, ShipmentPostView


def _remove_package(package: Package) -> str:
    services.package_remove(package=package)
    return f"Package {package.number} removed; its units are unpacked."


class PackageRemoveView(RemoveView):
    """Unpack one package: its units and serials go back to unpacked."""

    queryset = Package.objects.select_related("shipment")
    removal = _remove_package
    anchor = "#packages"


class PackageAddView(ShipmentPostView):
    form_class = PackageForm
    form_name = "package_form"
    section = "packages"
    keep_open = True

    def form_kwargs(self):
        return {"shipment": self.shipment}

    def save(self, form):
        data = form.cleaned_data
        contents, serials = data["contents"], data["serials"]
        fields = {name: data[name] for name in PackageForm.Meta.fields if name in data}
        lines = {line.line_number: line for line in self.shipment.lines.all()}
        missing = [str(n) for n, _ in contents if n not in lines]
        if missing:
            raise ValidationError({"contents": f"No line {', '.join(missing)} on {self.shipment}."})
        package = services.package_add(
            shipment=self.shipment, fields=fields, items=[(lines[n], q) for n, q in contents], serials=serials
        )
        return f"{package} added."
