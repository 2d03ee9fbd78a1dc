#!/usr/bin/env python3
"""module-graph.py [REPO]: the module graph of a checkout, read from its Rust imports.

A module is a top-level entry of src/ (a folder and the file of the same name count as one:
src/registry.rs with src/registry/), src/main.rs, src/bin/ and benches/. An arrow runs from
module A to module B when a file of A names B by a path (`crate::b`, `nimsquare::b`, or
`mod b;` in the binary's root); paths inside one module are not arrows. A module's layer is 1
above the highest layer it points to (1 when it points nowhere), which is defined only when
there is no circle. Prints one line a module, from the top layer down (layer, module, lines,
the modules it points to), then one summary line: modules, layers, arrows, arrows in circles.

Run it on any commit: `git worktree add --detach /tmp/old REV && scripts/module-graph.py /tmp/old`.
"""

import re
import sys
from pathlib import Path

repo = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
src = repo / "src"


def module_of(path: Path) -> str:
    rel = path.relative_to(repo)
    parts = rel.parts
    if parts[0] == "benches":
        return "benches"
    if parts[1] == "bin":
        return "src/bin"
    if len(parts) == 2:
        return "src/" + parts[1].removesuffix(".rs")
    return "src/" + parts[1]


def strip_comments(text: str) -> str:
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


files = sorted(p for p in list(src.rglob("*.rs")) + list((repo / "benches").rglob("*.rs")))
lines: dict[str, int] = {}
arrows: dict[str, set[str]] = {}
library = {module_of(p).removeprefix("src/") for p in files if module_of(p).startswith("src/")}
for path in files:
    module = module_of(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    lines[module] = lines.get(module, 0) + text.count("\n")
    code = strip_comments(text)
    binary = module in ("src/main", "src/cli")
    targets = set()
    for name in re.findall(r"\bnimsquare::(\w+)", code):
        targets.add(name)
    for name in re.findall(r"\bcrate::(\w+)", code):
        if binary and name != "cli":
            continue  # the binary's `crate::` is the binary itself
        targets.add(name)
    # `crate::{a, b::c}` groups
    for group in re.findall(r"\b(?:crate|nimsquare)::\{([^}]*)\}", code):
        for name in re.findall(r"(?:^|,)\s*(\w+)", group):
            targets.add(name)
    if module == "src/main":
        targets.update(re.findall(r"^\s*mod (\w+);", code, re.M))
    found = {"src/" + t for t in targets if t in library} - {module}
    arrows.setdefault(module, set()).update(found)

# Layers by longest path; modules on a circle get none.
layer: dict[str, int] = {}
on_circle: set[str] = set()


def place(module: str, stack: list[str]) -> int:
    if module in layer:
        return layer[module]
    if module in stack:
        on_circle.update(stack[stack.index(module):])
        return 0
    stack.append(module)
    height = 1 + max((place(t, stack) for t in arrows.get(module, ())), default=0)
    stack.pop()
    layer[module] = height
    return height


for module in sorted(lines):
    place(module, [])
for module in sorted(lines, key=lambda m: (-layer[m], -lines[m])):
    targets = " ".join(sorted(t.removeprefix("src/") for t in arrows.get(module, ())))
    print(f"layer {layer[module]:2}  {module:<18} {lines[module]:6} lines  -> {targets}")
total_arrows = sum(len(t) for t in arrows.values())
circle_arrows = sum(1 for m in on_circle for t in arrows.get(m, ()) if t in on_circle)
print(
    f"modules={len(lines)} layers={max(layer.values())} arrows={total_arrows} "
    f"arrows_in_circles={circle_arrows} lines={sum(lines.values())}"
)
