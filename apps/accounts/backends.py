"""Sign-in for the browser (login form and every request's session)."""

from django.contrib.auth.backends import ModelBackend


class OrganisationAwareModelBackend(ModelBackend):
    """Django's ModelBackend, refusing users whose organisation is deactivated as well as inactive
    users. `user_can_authenticate` decides both the login form (`authenticate`) and each request's
    session (`get_user`), so deactivating an organisation signs its users out at their next request."""

    def user_can_authenticate(self, user) -> bool:
        return super().user_can_authenticate(user) and getattr(user, "can_sign_in", True)
