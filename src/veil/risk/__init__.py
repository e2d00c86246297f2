"""veil.risk"""

__all__: list[str] = []
