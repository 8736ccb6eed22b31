# shellcheck shell=bash
# Sourced by scripts/test and scripts/run: make sure .venv exists and holds the
# project installed in editable mode with its dev extras.
#
#   ensure_venv            creates .venv with python3.11 when missing (or broken) and
#                          runs `pip install -e '.[dev]'` when pyproject.toml changed
#                          since the last successful install (hash kept in .venv).
#
# KINETOGRAPH_PYTHON overrides the interpreter used to create the venv.
# The caller must have cd'ed to the repository root and set `set -euo pipefail`.

VENV_DIR=".venv"
VENV_PY="$VENV_DIR/bin/python"
VENV_STAMP="$VENV_DIR/.kinetograph-install.sha256"

_venv_log() { printf '[venv] %s\n' "$*" >&2; }

_venv_base_python() {
    local py="${KINETOGRAPH_PYTHON:-python3.11}"
    if ! command -v "$py" >/dev/null 2>&1; then
        _venv_log "error: $py not found; install Python 3.11 (Debian: apt-get install python3.11 python3.11-venv)"
        return 1
    fi
    printf '%s\n' "$py"
}

# The stamp covers what the install depends on: pyproject.toml, the interpreter
# version and the checkout's location (an editable install points at it).
_venv_wanted_stamp() {
    {
        sha256sum pyproject.toml
        "$VENV_PY" -c 'import sys; print(sys.version)'
        pwd -P
    } | sha256sum | cut -d' ' -f1
}

_venv_create() {
    local py
    py="$(_venv_base_python)"
    _venv_log "creating $VENV_DIR with $("$py" --version 2>&1)"
    rm -rf "$VENV_DIR"
    "$py" -m venv "$VENV_DIR"
}

_venv_ensure_locked() {
    if ! "$VENV_PY" -c 'import sys; assert sys.version_info[:2] >= (3, 11)' >/dev/null 2>&1; then
        _venv_create
    fi
    local wanted
    wanted="$(_venv_wanted_stamp)"
    if [[ -f "$VENV_STAMP" && "$(cat "$VENV_STAMP")" == "$wanted" ]]; then
        return 0
    fi
    _venv_log "installing the project and its dev extras (pyproject.toml changed or first run)"
    # pip's output goes to a log (the machine's index configuration can make it
    # chatty even with --quiet); it is shown only when the install fails.
    local log="$VENV_DIR/pip-install.log"
    if ! "$VENV_PY" -m pip install --quiet --disable-pip-version-check -e '.[dev]' >"$log" 2>&1; then
        _venv_log "error: pip install -e '.[dev]' failed; its output ($log):"
        tail -n 60 "$log" >&2
        return 1
    fi
    printf '%s\n' "$wanted" >"$VENV_STAMP"
}

ensure_venv() {
    # Serialise concurrent callers (two terminals, an editor's test runner) so they
    # do not build the venv at the same time. The lock is the checkout's root
    # directory itself, so no lock file is left behind.
    if command -v flock >/dev/null 2>&1; then
        local fd
        exec {fd}<.
        flock "$fd"
        _venv_ensure_locked
        exec {fd}<&-
        return 0
    fi
    _venv_ensure_locked
}
