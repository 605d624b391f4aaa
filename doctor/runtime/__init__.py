"""Diagnostics that run the user's code: the model probe, the distributed sanity test, and the
supervisor that explains a failed child process. These import torch, always lazily."""
