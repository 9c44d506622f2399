"""Making runs: the kernel registry, one fresh process per fork (launch), the JPype bridge, the sweep and its run
loop, command-line overrides, interrupts, scratch space, the JIT/GC log of a timed run (harness), JMH forks (jmh).

Imports mechsym.style, mechsym.store and mechsym.machine below it."""
