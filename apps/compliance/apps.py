from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "apps.compliance"
    verbose_name = "Export-control compliance"
