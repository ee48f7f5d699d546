"""Rules engine placeholder package for qwirkle (filled by its issue)."""
