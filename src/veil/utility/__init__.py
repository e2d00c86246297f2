"""veil.utility"""

__all__: list[str] = []
