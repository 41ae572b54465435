"""No circles between the files of server-stub/src: reads each file's `crate::` and `super::`
paths (outside comments and test modules), resolves them to files, and fails naming each set
of files that import one another round a circle. `npm test` runs it."""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server-stub", "src")


def module_path(rel):
    parts = rel[:-3].split("/")
    return parts[:-1] if parts[-1] in ("mod", "lib") else parts


def main():
    files = {}
    for folder, _, names in os.walk(ROOT):
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), ROOT)
            if name.endswith(".rs") and name != "tests.rs" and not rel.startswith("bin/") and rel != "main.rs":
                text = open(os.path.join(folder, name), encoding="utf-8").read().split("#[cfg(test)]")[0]
                files[rel] = "\n".join(line.split("//")[0] for line in text.split("\n"))
    modules = {tuple(module_path(rel)): rel for rel in files}

    def resolve(path):
        for n in range(len(path), 0, -1):
            if tuple(path[:n]) in modules:
                return modules[tuple(path[:n])]
        return None

    edges = {}
    for rel, text in files.items():
        me = module_path(rel)
        found = set()
        for match in re.finditer(r"\b(crate|super)((?:::\w+)+)", text):
            path = ([] if match.group(1) == "crate" else me[:-1]) + match.group(2).strip(":").split("::")
            while "super" in path:
                i = path.index("super")
                path = path[: max(i - 1, 0)] + path[i + 1 :]
            target = resolve(path)
            if target and target != rel:
                found.add(target)
        for group in re.finditer(r"use crate::\{([^;]*)\};", text, re.S):
            for item in re.findall(r"\w+(?:::\w+)*", group.group(1)):
                target = resolve(item.split("::"))
                if target and target != rel:
                    found.add(target)
        edges[rel] = found

    index, low, stack, on, circles, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10_000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    for circle in circles:
        print("files that import one another round a circle:", ", ".join(circle))
    print(f"{len(files)} files, {sum(len(e) for e in edges.values())} imports, {len(circles)} circles")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
