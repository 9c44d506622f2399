#!/bin/sh
# What a fleet host lacks to build and run the lab, checked with the Python Ansible will use there (the playbook
# pins that interpreter for every later step: a Python that passed here is the one that runs them).
#   check_prereqs.sh PYTHON MODE     MODE: make (builds online) | pack (builds from `make pack`) | built
# Prints "ready: PYTHON-PATH VERSION MACHINE" when all is there; otherwise one line naming every problem, with the
# Python's own error when it does not run. Always exits 0: the playbook turns a problem line into the host's failure.
# Shell builtins only, besides the tools it checks: the PATH it runs with may hold nothing else.
py=${1:-python3}
mode=${2:-make}
problems=""
add() { problems="${problems:+$problems; }$1"; }
# the last non-blank line of $1
lastline() {
    last=""
    while IFS= read -r l; do
        case "$l" in *[![:space:]]*) last=$l ;; esac
    done <<EOF_
$1
EOF_
    printf '%s' "$last"
}

about='import sys, platform; print(sys.executable, "%d.%d.%d" % sys.version_info[:3], platform.machine())'
works() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1; }
where=$(command -v "$py" 2>/dev/null)
info=""
if [ -z "$where" ]; then
    add "python: $py not found"
else
    out=$("$where" -c "$about" 2>&1)
    rc=$?
    out=$(lastline "$out")
    if [ $rc -ne 0 ]; then
        add "python: $py ($where) does not run: ${out:-exit status $rc}"
    elif ! works "$where"; then
        set -- $out
        add "python: $py ($where) is $2, older than 3.10"
    else
        info=$out
    fi
fi
if [ -z "$info" ]; then   # name a Python that would do, if there is one
    for alt in /usr/bin/python3 /usr/local/bin/python3; do
        if [ "$alt" != "$where" ] && [ -x "$alt" ] && works "$alt"; then
            add "$alt works: set ansible_python_interpreter=$alt for this host in the inventory"
            break
        fi
    done
fi

missing=""
need() { command -v "$1" >/dev/null 2>&1 || missing="${missing:+$missing, }${2:-$1}"; }
if command -v javac >/dev/null 2>&1; then
    v=$(lastline "$(javac -version 2>&1)")
    v=${v#javac }
    v=${v%%[!0-9]*}
    if [ -z "$v" ] || [ "$v" -lt 17 ]; then missing="javac (JDK 17 or newer; found ${v:-an unreadable version})"; fi
else
    missing="javac (JDK 17)"
fi
need git
case "$mode" in
    make) need gcc; need make; need mvn ;;
    pack) need gcc; need make ;;
esac
[ -n "$missing" ] && problems="missing $missing${problems:+; $problems}"

if [ -n "$problems" ]; then echo "$problems"; else echo "ready: $info"; fi
exit 0
