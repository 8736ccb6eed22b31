"""Running ES modules in node with the vendored three.js: bare specifiers (``three``,
``three/addons/...``) resolved through ``static/vendor/three/README.md``'s import map,
as a page's import map resolves them in the browser."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "static"
VENDOR = STATIC / "vendor" / "three"
NODE = shutil.which("node")
VALIDATOR = ROOT / "node_modules" / "gltf-validator"


def import_map() -> dict[str, str]:
    """The import map that the vendored README tells pages to declare."""
    match = re.search(r'^\{"imports": .*\}$', (VENDOR / "README.md").read_text(), re.M)
    assert match, "README.md documents no import map"
    imports: dict[str, str] = json.loads(match.group(0))["imports"]
    return imports


def node_module(program: str, *, timeout_s: float = 60.0) -> str:
    """Run ``program`` as an ES module in node (from the repository root); its stdout."""
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", program],
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        cwd=ROOT,
    )
    return done.stdout.strip()


def node_with_import_map(body: str, *, timeout_s: float = 60.0) -> str:
    """Run ``body`` (an ES module body) in node with bare specifiers resolved through
    the import map (a node resolve hook standing in for the browser's)."""
    files = {
        key: STATIC.as_uri() + url.removeprefix("/static") for key, url in import_map().items()
    }
    hooks = f"""
        const map = {json.dumps(files)};
        export async function resolve(specifier, context, next) {{
            if (specifier in map) return {{ url: map[specifier], shortCircuit: true }};
            for (const [key, url] of Object.entries(map)) {{
                if (key.endsWith('/') && specifier.startsWith(key)) {{
                    return {{ url: url + specifier.slice(key.length), shortCircuit: true }};
                }}
            }}
            return next(specifier, context);
        }}"""
    program = f"""
        import * as nodeModule from 'node:module';
        if (typeof nodeModule.register !== 'function') {{
            console.log('no-register');
        }} else {{
            nodeModule.register('data:text/javascript,' + encodeURIComponent({json.dumps(hooks)}));
            {body}
        }}"""
    output = node_module(program, timeout_s=timeout_s)
    if output == "no-register":
        pytest.skip("this node has no module.register (needs node >= 20.6) for the import map")
    return output


def gltf_issues(path: Path) -> dict[str, Any]:
    """The Khronos glTF validator's issues for the GLB at ``path`` (``numErrors``,
    ``numWarnings``, ``messages``…); skipped without node or ``npm ci``'s
    ``node_modules/gltf-validator``, except in CI, which installs both."""
    if NODE is None or not VALIDATOR.is_dir():
        reason = "the Khronos glTF validator needs node and `npm ci` (node_modules/gltf-validator)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + ": CI installs both")
        pytest.skip(reason)
    program = f"""
        import {{ readFileSync }} from 'node:fs';
        import validator from {json.dumps(VALIDATOR.as_uri() + "/index.js")};
        const report = await validator.validateBytes(
            new Uint8Array(readFileSync({json.dumps(str(path))})), {{ maxIssues: 20 }});
        console.log(JSON.stringify(report.issues));"""
    issues: dict[str, Any] = json.loads(node_module(program))
    return issues


def issue_lines(issues: dict[str, Any]) -> list[str]:
    """The validator's messages, one line each (for an assertion's message)."""
    return [f"{m['code']} {m.get('pointer', '')}: {m['message']}" for m in issues["messages"]]
