"""veil.tabular"""

__all__: list[str] = []
