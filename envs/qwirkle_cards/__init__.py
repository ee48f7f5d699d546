"""Rules engine placeholder package for qwirkle_cards (filled by its issue)."""
