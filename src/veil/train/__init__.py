"""veil.train"""

__all__: list[str] = []
