"""Allocates (and touches) far past the sandbox's memory limit: 16 GiB in 64 MiB blocks."""
import sys

blocks = []
for _ in range(256):
    blocks.append(bytearray(64 << 20))
print("allocated 16 GiB", file=sys.stderr)
