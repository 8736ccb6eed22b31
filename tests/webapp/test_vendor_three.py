"""Vendored three.js (``static/vendor/three/``, written by ``scripts/vendor-three``): the
files are there and name the pinned version, every import resolves through the documented
import map, node can load them (and BVHLoader, the viewer bench's peer, parses a BVH), and
Django's static files machinery serves them."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client, override_settings

from support.three_node import (
    NODE,
    ROOT,
    VENDOR,
    import_map,
    node_module,
    node_with_import_map,
)

SCRIPT = ROOT / "scripts" / "vendor-three"

VENDORED = (
    "three.module.js",
    "three.core.js",
    "addons/controls/OrbitControls.js",
    "addons/loaders/BVHLoader.js",
    "addons/loaders/GLTFLoader.js",
    "addons/utils/BufferGeometryUtils.js",
    "addons/utils/SkeletonUtils.js",
    "LICENSE",
    "VERSION",
    "README.md",
)
MODULES = sorted(p.relative_to(VENDOR).as_posix() for p in VENDOR.rglob("*.js"))

# Statement-level `import … from '…'`, `export … from '…'` and `import '…'`; a comment
# such as ` * @three_import import { X } from '…'` does not start a line with `import`.
IMPORT_RE = re.compile(
    r"""^[ \t]*(?:import|export)\b(?:[\w\s{},*$]*?\bfrom)?\s*['"]([^'"]+)['"]""", re.M
)
SHA512_SRI_RE = re.compile(r"sha512-[A-Za-z0-9+/]{86}==")


def pinned_version() -> str:
    match = re.search(r"^THREE_VERSION=(\S+)$", SCRIPT.read_text(), re.M)
    assert match, f"no THREE_VERSION=… line in {SCRIPT}"
    return match.group(1)


def imports_of(module: str) -> set[str]:
    return set(IMPORT_RE.findall((VENDOR / module).read_text()))


def resolve(specifier: str, importer: str) -> Path | None:
    """The vendored file a browser fetches for ``specifier`` imported by ``importer``."""
    if specifier.startswith(("./", "../")):
        target = (VENDOR / importer).parent / specifier
        return target.resolve() if target.is_file() else None
    imports = import_map()
    url = imports.get(specifier)
    if url is None:
        prefixes = [k for k in imports if k.endswith("/") and specifier.startswith(k)]
        if not prefixes:
            return None
        prefix = max(prefixes, key=len)
        url = imports[prefix] + specifier[len(prefix) :]
    static_prefix = "/" + settings.STATIC_URL.lstrip("/")
    assert url.startswith(static_prefix), f"{url} is not under {static_prefix}"
    found = finders.find(url.removeprefix(static_prefix))
    return Path(found).resolve() if isinstance(found, str) else None


@pytest.mark.parametrize("name", VENDORED)
def test_vendored_file_exists(name: str) -> None:
    path = VENDOR / name
    assert path.is_file(), f"{path} is missing; run scripts/vendor-three"
    assert path.stat().st_size > 0


def test_version_file_names_the_pinned_version_and_integrity() -> None:
    version, integrity = (VENDOR / "VERSION").read_text().splitlines()
    assert version == pinned_version()
    assert SHA512_SRI_RE.fullmatch(integrity)
    assert integrity in (VENDOR / "README.md").read_text()


def test_readme_attributes_three_js() -> None:
    readme = (VENDOR / "README.md").read_text()
    assert f"three@{pinned_version()}" in readme
    assert "MIT" in readme
    assert "three.js authors" in readme
    assert "https://github.com/mrdoob/three.js" in readme


def test_license_is_the_three_js_mit_licence() -> None:
    licence = (VENDOR / "LICENSE").read_text()
    assert licence.startswith("The MIT License")
    assert re.search(r"^Copyright © 2010-\d{4} three\.js authors$", licence, re.M)
    assert "Permission is hereby granted, free of charge, to any person" in licence
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in licence


def test_revision_matches_the_pinned_version() -> None:
    """npm's 0.N.0 is three.js's rN; ``three.module.js`` re-exports it from the core."""
    revision = pinned_version().split(".")[1]
    core = (VENDOR / "three.core.js").read_text()
    assert re.findall(r"^const REVISION = '(\w+)';$", core, re.M) == [revision]
    module = (VENDOR / "three.module.js").read_text()
    assert re.search(r"^import \{[^}]*\bREVISION\b[^}]*\} from './three\.core\.js';$", module, re.M)
    assert re.search(r"^export \{[^}]*\bREVISION\b[^}]*\};$", module, re.M)


def test_import_parser_sees_the_known_imports() -> None:
    assert "./three.core.js" in imports_of("three.module.js")
    assert imports_of("addons/controls/OrbitControls.js") == {"three"}
    assert imports_of("addons/loaders/BVHLoader.js") == {"three"}


def test_import_map_points_into_the_vendored_tree() -> None:
    assert import_map() == {
        "three": "/static/vendor/three/three.module.js",
        "three/addons/": "/static/vendor/three/addons/",
    }


@pytest.mark.parametrize("module", MODULES)
def test_every_import_resolves_to_a_vendored_file(module: str) -> None:
    for specifier in sorted(imports_of(module)):
        target = resolve(specifier, module)
        assert target is not None, f"{module} imports {specifier!r}, which nothing provides"
        assert target.is_relative_to(VENDOR.resolve()), f"{specifier!r} resolves outside vendor"


def test_staticfiles_finder_finds_the_vendored_modules() -> None:
    for name in (name for name in VENDORED if name.endswith(".js")):
        found = finders.find(f"vendor/three/{name}")
        assert isinstance(found, str)
        assert Path(found).resolve() == (VENDOR / name).resolve()


@override_settings(WHITENOISE_USE_FINDERS=True)
def test_whitenoise_serves_the_module_as_javascript() -> None:
    """Browsers refuse module scripts not sent with a JavaScript MIME type."""
    response = Client().get("/static/vendor/three/three.module.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    assert body == (VENDOR / "three.module.js").read_bytes()


@pytest.mark.skipif(NODE is None, reason="node is not installed, cannot load the modules")
def test_node_loads_three_module_with_its_revision() -> None:
    url = (VENDOR / "three.module.js").as_uri()
    program = f"import {{ REVISION }} from {json.dumps(url)}; console.log(REVISION);"
    assert node_module(program) == pinned_version().split(".")[1]


@pytest.mark.skipif(NODE is None, reason="node is not installed, cannot load the modules")
def test_node_loads_orbit_controls_through_the_import_map() -> None:
    """Build an OrbitControls for a camera."""
    output = node_with_import_map("""
        const { PerspectiveCamera } = await import('three');
        const { OrbitControls } = await import('three/addons/controls/OrbitControls.js');
        console.log(new OrbitControls(new PerspectiveCamera()).enabled);""")
    assert output == "true"


# Two joints and an end site, two frames: the root moves up 1 unit, the child turns 90°
# about Z in the second frame.
TINY_BVH = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 5 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
0 90 0 0 0 0 0 0 0
0 91 0 0 0 0 90 0 0
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed, cannot load the modules")
def test_node_parses_bvh_with_the_vendored_loader_through_the_import_map() -> None:
    """BVHLoader (the viewer bench's peer) parses a BVH, and an AnimationMixer plays it."""
    output = node_with_import_map(f"""
        const {{ AnimationMixer, Vector3 }} = await import('three');
        const {{ BVHLoader }} = await import('three/addons/loaders/BVHLoader.js');
        const {{ skeleton, clip }} = new BVHLoader().parse({json.dumps(TINY_BVH)});
        const root = skeleton.bones[0];
        const mixer = new AnimationMixer(root);
        mixer.clipAction(clip).play();
        mixer.update(0.25);
        root.updateMatrixWorld(true);
        const end = skeleton.bones[2].getWorldPosition(new Vector3());
        console.log(JSON.stringify({{
            bones: skeleton.bones.map((b) => b.name),
            duration: clip.duration,
            end: end.toArray().map((v) => Math.round(v * 1e6) / 1e6),
        }}));""")
    result = json.loads(output)
    assert result["bones"] == ["Hips", "Spine", "ENDSITE"]
    assert result["duration"] == pytest.approx(0.5)
    # Halfway between the frames (the clip loops at its 0.5 s duration): root at
    # (0, 90.5, 0), Spine 10 up, then the end site 5 along Spine's Y turned 45° about Z.
    half = 5 * math.sqrt(0.5)
    assert result["end"] == pytest.approx([-half, 100.5 + half, 0.0], abs=1e-5)
