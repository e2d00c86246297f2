"""veil.dp"""

__all__: list[str] = []
