"""easel-ls: language server and checker for Easel skills."""

__version__ = "0.1.0"
