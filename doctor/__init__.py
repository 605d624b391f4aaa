"""torchdoctor: diagnostics for PyTorch. `torchdoctor env` examines the machine."""

__version__ = "0.1.0"
