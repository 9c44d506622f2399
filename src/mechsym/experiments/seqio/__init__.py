"""Sequential file IO from Java: notebook 04.

Post: "Java Sequential IO Performance" (2011-12-26), Martin Thompson: a pre-allocated file written then read back,
five passes in one JVM, by RandomAccessFile, buffered streams, FileChannel with a heap ByteBuffer and a
MappedByteBuffer; a 400MB file that fits the page cache and an 8GB file on an 8GB machine that does not.

Kernel: mechsym.io.SequentialIo (those four methods, plus FileChannel with a direct ByteBuffer); dd on the same
file, in the same run, gives the device's own limit.

Sweep (sweep.py): regime (page-cache, evicted, and opt-in larger-than-ram) x method x JDK (the newest in `smoke`
and `standard`, every JDK in `full`), each fork one JVM doing every pass; buffered streams with biased locking
from the page cache; dd with fdatasync writes and evicted reads, and dd through the page cache. `standard`: the
post's 400MB file in both regimes, 5 passes, 3 forks per cell. The run loop is the lab's one (mechsym.run.sweep);
this package gives it a session (the scratch directory), a prepare step (the pre-allocated file), the eviction
handshake on the kernel's stderr/stdin and the dd runner; the file's room, making and eviction are the shared
mechsym.run.scratch.

tables.py, figures.py: the post's tables and passes, this machine's beside them, dd's ceilings, eviction checks,
the two kernel protocols side by side (read by rows.py). claims.py: the claims; verdicts.py judges them per
fork with intervals.
"""

from ...run.sweep import Cell  # noqa: F401  (the cells' type, for readers of this package)
from .claims import CLAIM, CLAIMS
from .figures import COLORS, plot_passes, plot_protocols, plot_reference
from .meta import NAME, NOTEBOOKS, POST_FILE, POST_METHODS, PRESETS, REFERENCE, TITLE
from .rows import LAB, ORDERS, POST, PROTOCOL_NAMES, PROTOCOLS, reference, reference_medians, throughput
from .sweep import (
    ALL, BIASED, DD, KERNEL, KERNEL_METHODS, METHODS, REGIMES, SIZE_ENV, cells, dd, parse_size, ram_bytes, regimes,
    session, write_pattern)
from .tables import (
    ceilings, device_ceiling, findings, protocols, reference_table, regimes_table, residency, run_info, summary)
from .verdicts import verdicts
