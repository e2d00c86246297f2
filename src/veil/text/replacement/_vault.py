"""A reversible token vault for authorised re-identification (SQLAlchemy: SQLite or PostgreSQL).

Each (entity type, value) gets a deterministic token ``<ENTITY_xxxxxxxxxxxx>`` (a keyed
HMAC, so the token itself reveals nothing and the same value always gets the same token).
The value is stored encrypted with AES-GCM under a key derived from the vault key; the
database alone re-identifies no one. Every lookup, found or not, is written to the audit
table with the time, the actor and the stated purpose, before the value is returned.

Tables: ``veil_text_vault(token, entity_type, ciphertext, created_at)`` and
``veil_text_vault_audit(id, at, actor, purpose, action, token, found)``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from typing import Any

from veil._errors import InputError, KeyMismatchError, KeyMissingError
from veil.text.replacement._keys import derive

__all__ = ["TokenVault"]


class TokenVault:
    """Tokens for values, values for tokens (audited).

    Parameters
    ----------
    url
        SQLAlchemy URL, e.g. ``sqlite:///vault.db`` or ``postgresql+psycopg://u@h/db``.
    key
        The vault key (at least 16 bytes); see :func:`veil.text.replacement._keys.load_key`.
    actor
        Who tokenizes, recorded with each lookup unless the lookup names another actor.

    Examples
    --------
    >>> import secrets
    >>> vault = TokenVault("sqlite://", secrets.token_bytes(32))
    >>> token = vault.tokenize("Jane Roe", "PERSON"); vault.flush()
    >>> vault.lookup(token, actor="dpo", purpose="subject access request")
    'Jane Roe'
    >>> [row["purpose"] for row in vault.audit_log()]
    ['subject access request']
    """

    def __init__(self, url: str, key: bytes, *, actor: str = "veil") -> None:
        import sqlalchemy as sa

        self.actor = actor
        self._mac_key = derive(key, "vault-token")
        self._enc_key = derive(key, "vault-aes", 32)
        self._check = hmac.new(derive(key, "vault-check"), b"check", hashlib.sha256).hexdigest()[
            :16
        ]
        self.engine = sa.create_engine(url)
        md = sa.MetaData()
        self.tokens = sa.Table(
            "veil_text_vault",
            md,
            sa.Column("token", sa.String(64), primary_key=True),
            sa.Column("entity_type", sa.String(64), nullable=False),
            sa.Column("ciphertext", sa.LargeBinary, nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        )
        self.meta = sa.Table(
            "veil_text_vault_meta",
            md,
            sa.Column("name", sa.String(32), primary_key=True),
            sa.Column("value", sa.String(64), nullable=False),
        )
        self.audit = sa.Table(
            "veil_text_vault_audit",
            md,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("actor", sa.String(200), nullable=False),
            sa.Column("purpose", sa.String(500), nullable=False),
            sa.Column("action", sa.String(32), nullable=False),
            sa.Column("token", sa.String(64), nullable=True),
            sa.Column("found", sa.Boolean, nullable=False),
        )
        md.create_all(self.engine)
        with self.engine.begin() as conn:
            row = conn.execute(
                sa.select(self.meta.c.value).where(self.meta.c.name == "key_check")
            ).first()
            if row is None:
                conn.execute(self.meta.insert().values(name="key_check", value=self._check))
            elif row[0] != self._check:
                raise KeyMismatchError(
                    "the vault was created with a different key (its key check value differs); "
                    "nothing was looked up",
                    hint="use the vault's own key (VEIL_VAULT_KEY), or a new vault URL",
                )
        self._pending: dict[str, tuple[str, bytes]] = {}

    def token_for(self, value: str, entity_type: str) -> str:
        mac = hmac.new(
            self._mac_key, entity_type.encode() + b"\x00" + value.encode("utf-8"), hashlib.sha256
        ).hexdigest()[:12]
        return f"<{entity_type}_{mac}>"

    def tokenize(self, value: str, entity_type: str) -> str:
        """The token for a value; the encrypted value is stored at the next :meth:`flush`."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        token = self.token_for(value, entity_type)
        if token not in self._pending:
            nonce = secrets.token_bytes(12)
            blob = nonce + AESGCM(self._enc_key).encrypt(
                nonce, value.encode("utf-8"), token.encode()
            )
            self._pending[token] = (entity_type, blob)
            if len(self._pending) >= 5000:
                self.flush()
        return token

    def flush(self) -> None:
        """Store the values tokenized since the last flush (existing tokens are kept)."""
        if not self._pending:
            return
        now = dt.datetime.now(dt.UTC)
        rows = [
            {"token": t, "entity_type": e, "ciphertext": c, "created_at": now}
            for t, (e, c) in self._pending.items()
        ]
        dialect = self.engine.dialect.name
        if dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            stmt: Any = pg_insert(self.tokens).on_conflict_do_nothing(index_elements=["token"])
        elif dialect == "sqlite":
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            stmt = sqlite_insert(self.tokens).on_conflict_do_nothing(index_elements=["token"])
        else:  # pragma: no cover - other databases: plain insert of the new tokens only
            import sqlalchemy as sa

            with self.engine.connect() as conn:
                have = {
                    r[0]
                    for r in conn.execute(
                        sa.select(self.tokens.c.token).where(
                            self.tokens.c.token.in_(list(self._pending))
                        )
                    )
                }
            rows = [r for r in rows if r["token"] not in have]
            stmt = self.tokens.insert()
        if rows:
            with self.engine.begin() as conn:
                conn.execute(stmt, rows)
        self._pending.clear()

    def lookup(self, token: str, *, actor: str | None = None, purpose: str) -> str | None:
        """The original value of ``token``, or ``None``; the request is audit-logged first."""
        import sqlalchemy as sa
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        if not purpose or not purpose.strip():
            raise InputError(
                "a vault lookup needs a purpose", hint="say why, e.g. --purpose 'DSAR 2024-17'"
            )
        self.flush()
        with self.engine.begin() as conn:
            row = conn.execute(
                sa.select(self.tokens.c.ciphertext).where(self.tokens.c.token == token)
            ).first()
            conn.execute(
                self.audit.insert().values(
                    at=dt.datetime.now(dt.UTC),
                    actor=actor or self.actor,
                    purpose=purpose,
                    action="lookup",
                    token=token[:64],
                    found=row is not None,
                )
            )
        if row is None:
            return None
        blob = bytes(row[0])
        try:
            data = AESGCM(self._enc_key).decrypt(blob[:12], blob[12:], token.encode())
        except InvalidTag:
            raise KeyMissingError("a vault entry does not decrypt with this key") from None
        return data.decode("utf-8")

    def audit_log(self) -> list[dict[str, Any]]:
        """Every lookup so far, oldest first (no values)."""
        import sqlalchemy as sa

        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(self.audit).order_by(self.audit.c.id)).mappings().all()
        return [dict(r) for r in rows]

    def close(self) -> None:
        self.flush()
        self.engine.dispose()
