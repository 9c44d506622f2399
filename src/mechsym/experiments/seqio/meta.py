"""The seqio experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "seqio"
TITLE = "Sequential file writes and reads: RandomAccessFile, buffered streams, FileChannel, MappedByteBuffer, vs dd"
NOTEBOOKS = ["04-sequential-io"]
POST_FILE = "2011-12-26-java-sequential-io-performance.md"
REFERENCE = "2011-12-26-java-sequential-io"
POST_METHODS = ["random-access-file", "buffered-stream", "channel-heap", "mapped"]
PRESETS = {
    # sizes are multiples of 4096; 409,600,000 = 4096 x 100,000 (the post's 400MB). The evicted regime's file is
    # half that in `standard`: eviction before every phase, not the size, makes it cold, and the smaller file keeps
    # three forks per cell of both kernel protocols within ~15 minutes on 2 cores.
    "smoke": {"cache_size": 8 * 2**20, "cold_size": 8 * 2**20, "passes": 2, "forks": 1, "window": 2**20,
              "methods": POST_METHODS + ["channel-direct"], "jdks": 1, "larger_than_ram": False, "timeout": 60},
    "standard": {"cache_size": 409_600_000, "cold_size": 204_800_000, "passes": 5, "forks": 3, "window": None,
                 "methods": POST_METHODS + ["channel-direct"], "jdks": 1, "larger_than_ram": False, "timeout": 900},
    "full": {"cache_size": 409_600_000, "cold_size": 8_192_000_000, "passes": 5, "forks": 5, "window": None,
             "methods": POST_METHODS + ["channel-direct"], "jdks": None, "larger_than_ram": True, "timeout": 7200},
}
