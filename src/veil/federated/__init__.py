"""veil.federated"""

__all__: list[str] = []
