"""veil.text"""

__all__: list[str] = []
