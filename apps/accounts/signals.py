"""Sign-in bookkeeping around django-axes."""

from axes.utils import reset as axes_reset
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from .throttling import client_address


@receiver(user_logged_in, dispatch_uid="accounts.clear_failed_sign_ins")
def clear_failed_sign_ins(sender, request, user, **kwargs) -> None:
    """A success clears the failures of this account from this address, and nothing else: neither
    the account's failures from other addresses nor the address's failures at other accounts."""
    address = client_address(request) if request is not None else None
    if address:
        axes_reset(ip=address, username=user.get_username())
