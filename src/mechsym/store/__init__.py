"""Runs on disk: where they live (layout), how they are written (files) and checked (rows, integrity), which code
made them (fingerprint, provenance), saving and choosing them (runs), bundles between machines (bundle, archive),
the posts' own numbers (reference).

Imports only mechsym.machine below it."""
