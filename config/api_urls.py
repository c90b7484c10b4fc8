"""`/api/v1/`: one router for every app's viewsets."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from apps.accounts.api import views as accounts
from apps.catalog.api import views as catalog

app_name = "api"


class ApiRoot(DefaultRouter.APIRootView):
    """Rackpass partner API, version 1."""

    capabilities = {"read": "dashboard.view", "write": "dashboard.view"}


router = DefaultRouter()
router.APIRootView = ApiRoot
router.register("organisations", accounts.OrganisationViewSet, basename="organisation")
router.register("registrations", accounts.RegistrationViewSet, basename="registration")
router.register("contacts", accounts.ContactViewSet, basename="contact")
router.register("tokens", accounts.ApiTokenViewSet, basename="token")
router.register("parts", catalog.PartViewSet, basename="part")
router.register("manufacturers", catalog.ManufacturerViewSet, basename="manufacturer")

urlpatterns = [
    path("me/", accounts.MeView.as_view(), name="me"),
    *router.urls,
]
