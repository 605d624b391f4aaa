"""Checkpoint reading without executing it: zip and legacy torch.save files walked as pickle opcodes,
safetensors headers, and the things that are not checkpoints at all (LFS pointers, HTML pages)."""
