"""Is the kernel the post's code? The posts' own listings (listings), built and run outside the repository
(originals), measured beside the kernels (run, `mechsym fidelity-run`) and read back from data/fidelity (records).

Above mechsym.experiments, independent of mechsym.jmh."""
