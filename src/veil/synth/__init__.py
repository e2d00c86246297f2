"""veil.synth"""

__all__: list[str] = []
