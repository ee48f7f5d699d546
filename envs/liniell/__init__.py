"""Rules engine placeholder package for liniell (filled by its issue)."""
