"""Checkpoint rules (TI1xx): pure functions of what the checkpoint reader found. One rule per file."""
