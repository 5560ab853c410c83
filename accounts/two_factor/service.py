"""TOTP secrets and codes: set up, confirm, check, turn off (RFC 6238 via pyotp).

A code is accepted for its own 30-second step or the one either side (clocks
drift), and only for a step later than the last one accepted: the conditional
UPDATE on `last_step` makes a replayed code (or one from the same window
used in a parallel request) fail. Recovery codes are single-use the same
way: a conditional UPDATE of `used_at`.
"""

from __future__ import annotations

import hmac
import secrets
import time

import pyotp
import segno
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.audit.record import record
from accounts.two_factor.models import RecoveryCode, TwoFactor
from core import crypto

STEP_SECONDS = 30
RECOVERY_CODES = 10
_RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i


class AlreadyOn(Exception):
    """Two-factor sign-in is on already: turn it off before setting it up again."""


def is_on(user) -> bool:
    """One query."""
    return TwoFactor.objects.filter(user=user, confirmed_at__isnull=False).exists()


def _secret(two_factor: TwoFactor) -> str:
    return crypto.decrypt(two_factor.secret_encrypted)["secret"]


def start_setup(user) -> str:
    """A new secret for `user`, not yet on (a first code turns it on)."""
    if is_on(user):
        raise AlreadyOn()
    secret = pyotp.random_base32()
    TwoFactor.objects.update_or_create(
        user=user,
        defaults={
            "secret_encrypted": crypto.encrypt({"secret": secret}),
            "last_step": 0,
        },
    )
    return secret


def cancel_setup(user) -> None:
    """Drop a secret that was never confirmed (an `on` one stays)."""
    TwoFactor.objects.filter(user=user, confirmed_at__isnull=True).delete()


def pending_secret(user) -> str | None:
    """The secret being set up (shown until confirmed), or None."""
    two_factor = TwoFactor.objects.filter(user=user, confirmed_at__isnull=True).first()
    return _secret(two_factor) if two_factor else None


def provisioning_uri(user, secret: str) -> str:
    """The `otpauth://` URI an authenticator app reads from the QR code."""
    return pyotp.TOTP(secret).provisioning_uri(
        name=user.get_username(), issuer_name=settings.TWO_FACTOR_ISSUER
    )


def qr_svg(uri: str) -> str:
    """The URI as an inline SVG QR code (no script, no external image)."""
    return segno.make(uri, error="m").svg_inline(scale=5, border=2)


def _digits(code: str) -> str:
    return "".join(code.split())


def _accept_totp(two_factor: TwoFactor, code: str) -> bool:
    code = _digits(code)
    if len(code) != 6 or not code.isdigit():
        return False
    totp = pyotp.TOTP(_secret(two_factor))
    now = int(time.time()) // STEP_SECONDS
    for step in (now - 1, now, now + 1):
        if hmac.compare_digest(totp.at(step * STEP_SECONDS), code):
            # Once: a second use of this step (or an older one) updates nothing.
            return bool(
                TwoFactor.objects.filter(pk=two_factor.pk, last_step__lt=step).update(
                    last_step=step
                )
            )
    return False


def hash_code(code: str) -> str:
    """A recovery code's keyed hash (HMAC-SHA256 under SECRET_KEY)."""
    normal = "".join(ch for ch in code.lower() if ch.isalnum())
    return salted_hmac(
        "weir.two_factor.recovery", normal, algorithm="sha256"
    ).hexdigest()


def _use_recovery_code(user, code: str) -> bool:
    return bool(
        RecoveryCode.objects.filter(
            user=user, code_hash=hash_code(code), used_at__isnull=True
        ).update(used_at=timezone.now())
    )


def _new_recovery_codes(user) -> list[str]:
    RecoveryCode.objects.filter(user=user).delete()
    codes = []
    for _ in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(10))
        codes.append(f"{raw[:5]}-{raw[5:]}")
    RecoveryCode.objects.bulk_create(
        RecoveryCode(user=user, code_hash=hash_code(code)) for code in codes
    )
    return codes


def recovery_codes_left(user) -> int:
    return RecoveryCode.objects.filter(user=user, used_at__isnull=True).count()


def confirm(user, code: str, actor) -> list[str] | None:
    """Turn on the secret being set up if `code` is right; the new recovery
    codes (shown once), or None for a wrong code."""
    with transaction.atomic():
        two_factor = (
            TwoFactor.objects.select_for_update()
            .filter(user=user, confirmed_at__isnull=True)
            .first()
        )
        if two_factor is None or not _accept_totp(two_factor, code):
            return None
        TwoFactor.objects.filter(pk=two_factor.pk).update(confirmed_at=timezone.now())
        codes = _new_recovery_codes(user)
        record("auth.2fa_enabled", actor, user)
    return codes


def replace_recovery_codes(user, code: str, actor) -> list[str] | None:
    """Ten new recovery codes in place of all the old ones (used or not),
    shown once, if `code` is a current code from the app: a recovery code
    cannot mint more. None for a wrong code or when two-factor is off."""
    with transaction.atomic():
        two_factor = (
            TwoFactor.objects.select_for_update()
            .filter(user=user, confirmed_at__isnull=False)
            .first()
        )
        if two_factor is None or not _accept_totp(two_factor, code):
            return None
        codes = _new_recovery_codes(user)
        record("auth.recovery_codes_replaced", actor, user)
    return codes


def verify(user, code: str) -> str | None:
    """ "totp" or "recovery" when `code` is an unused code of `user`'s, else None.
    A recovery code is spent by this call."""
    two_factor = TwoFactor.objects.filter(user=user, confirmed_at__isnull=False).first()
    if two_factor is None:
        return None
    if _accept_totp(two_factor, code):
        return "totp"
    if _use_recovery_code(user, code):
        return "recovery"
    return None


def disable(user, code: str, actor) -> bool:
    """Turn two-factor off if `code` (an app code or a recovery code) is right."""
    with transaction.atomic():
        if verify(user, code) is None:
            return False
        TwoFactor.objects.filter(user=user).delete()
        RecoveryCode.objects.filter(user=user).delete()
        record("auth.2fa_disabled", actor, user)
    return True


def code_failed(user, actor) -> None:
    """A wrong code in the audit log (never the code itself)."""
    record("auth.2fa_failed", actor, user)
