"""The workspace's Ed25519 signing key: made, sealed for storage, unsealed to sign.

The private key is stored sealed (AES-256-GCM) under a key derived with HKDF-SHA256 from
the server's secret (Django's ``SECRET_KEY``); the associated data binds a sealed key to
its workspace, so a sealed key copied onto another workspace's row does not open. Only a
process holding the secret can sign; the database alone (a backup, a replica, a read-only
role) cannot. ``docs/audit-pack.md`` ("Key handling") gives the trade-offs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

ALGORITHM: Final = "Ed25519"
# Bumped if the sealing scheme changes (it is the HKDF salt, so old seals stay readable
# only under the old value).
SEAL_VERSION: Final = b"spanproof audit-pack signing key v1"
_NONCE_BYTES: Final = 12


class SigningKeyUnavailable(Exception):
    """The sealed key does not open with the server's secret (it was rotated without
    ``SECRET_KEY_FALLBACKS``, or the row belongs to another workspace)."""


def new_private_key() -> bytes:
    """A fresh Ed25519 private key (32 raw bytes)."""
    return Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )


def public_key_of(private_key: bytes) -> bytes:
    return (
        Ed25519PrivateKey.from_private_bytes(private_key)
        .public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    )


def sign(private_key: bytes, message: bytes) -> bytes:
    """The 64-byte Ed25519 signature of ``message``."""
    return Ed25519PrivateKey.from_private_bytes(private_key).sign(message)


def _sealing_key(secret: str, context: str) -> bytes:
    return HKDF(
        algorithm=hashes.SHA256(), length=32, salt=SEAL_VERSION, info=context.encode("utf-8")
    ).derive(secret.encode("utf-8"))


def seal(private_key: bytes, *, secret: str, context: str) -> bytes:
    """``nonce || AES-GCM(private_key)`` under a key derived from ``secret``; ``context``
    (the workspace) is bound in as associated data."""
    nonce = os.urandom(_NONCE_BYTES)
    sealed = AESGCM(_sealing_key(secret, context)).encrypt(
        nonce, private_key, context.encode("utf-8")
    )
    return nonce + sealed


def unseal(sealed: bytes, *, secrets: Sequence[str], context: str) -> bytes:
    """The private key, opened with the first of ``secrets`` that opens it (the current
    secret, then its fallbacks)."""
    nonce, body = sealed[:_NONCE_BYTES], sealed[_NONCE_BYTES:]
    for secret in secrets:
        try:
            return AESGCM(_sealing_key(secret, context)).decrypt(
                nonce, body, context.encode("utf-8")
            )
        except InvalidTag:
            continue
    raise SigningKeyUnavailable(
        "The audit-pack signing key does not open with this server's SECRET_KEY (nor its "
        "SECRET_KEY_FALLBACKS)."
    )
