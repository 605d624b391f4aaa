"""Model rules (TI2xx): pure functions of what the model probe recorded. One rule per file."""
