# The single source of the version: pyproject.toml reads it (hatch's version source), so
# `import veil` does not pay for importlib.metadata.
__version__ = "0.1.0"
