/**
 * Inter-process messaging through an off-heap SPSC queue in a memory-mapped
 * file, as in "135 Million messages a second between processes in pure Java"
 * (Nitsan Wakart, 2013-04-07): {@link mechsym.ipc.OffHeapQueue} (the queue and
 * its cache-line layout, through {@code sun.misc.Unsafe} at raw addresses) and
 * {@link mechsym.ipc.IpcThroughput} (the kernel: two JVMs or two threads,
 * messages/s per run, every message compared with the sequence sent). The
 * in-heap baseline is {@link mechsym.spsc.SpscThroughput} (queue O1), reused.
 */
package mechsym.ipc;
