"""The base of every policy model, and the error a cross-field check raises."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["LocatedError"]


class LocatedError(ValueError):
    """A cross-field error that knows which key of the policy it is about."""

    def __init__(self, message: str, *loc: str | int) -> None:
        super().__init__(message)
        self.loc = loc


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
