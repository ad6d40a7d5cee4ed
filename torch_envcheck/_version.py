"""The package's version, in a module of its own so that any module can read it without importing
the package's top level (which would be an import cycle through the lazy public API)."""

__version__ = "0.1.0"
