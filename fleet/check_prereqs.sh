#!/bin/sh
# What a fleet host lacks to build and run the lab: prints one line naming every missing or too-old tool, nothing
# when all is there. Always exits 0; the playbook turns a non-empty line into that host's one-line failure.
missing=""
add() { missing="${missing:+$missing, }$1"; }

if command -v javac >/dev/null 2>&1; then
    v=$(javac -version 2>&1 | sed -n 's/^javac \([0-9][0-9]*\).*/\1/p' | head -n 1)
    if [ -z "$v" ] || [ "$v" -lt 17 ]; then add "javac (JDK 17 or newer; found ${v:-an unreadable version})"; fi
else
    add "javac (JDK 17)"
fi
for tool in gcc make mvn git; do
    command -v "$tool" >/dev/null 2>&1 || add "$tool"
done
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null \
        || add "python3 >= 3.10 (found $(python3 -c 'import platform; print(platform.python_version())' 2>/dev/null))"
else
    add "python3 (>= 3.10)"
fi
[ -n "$missing" ] && echo "missing $missing"
exit 0
