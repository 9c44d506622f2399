"""This machine: its CPU topology, its JDKs, its identity, and what else used its CPUs while a run measured.

The bottom layer: it imports nothing of the lab but the root package."""
