"""veil.unlearning"""

__all__: list[str] = []
