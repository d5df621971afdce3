#!/usr/bin/env python3
"""Cycles between the modules of a crate, read from the paths its code writes.

    module_cycles.py [--edges] [SRC_DIR]     SRC_DIR: mcp-runtime/src by default

Exit status 0 when there is no cycle, 1 when there is one (each is printed), 2 when the
sources could not be read. --edges prints every arrow first.

An arrow A -> B means that code in file A names an item defined in file B: by a `use`, or by
a path in code (`crate::a::B`, `super::C`, `self::d::E`, `child::F`, `m::G` after
`use crate::m`, `$crate::h::I` in a macro). Paths are followed through imports and
re-exports to the file that defines the item, so `use crate::Server` is an arrow to the file
of `struct Server`, not to lib.rs. Importing a module (`use crate::dispatch;`) is no arrow by
itself, what the code then names through it is; `mod child;` is none either. A re-export
(`pub use`, `pub(crate) use`, globs included) only passes names on: it is an arrow where the
module's own code uses one of them. A name a glob brings in is an arrow where it is used.
So a child naming its parent's items is an arrow child -> parent, and the parent naming
(not merely re-exporting) the child's items is the arrow back.

Code under `#[cfg(test)]` (a `mod tests`, a test-only file, a test-only `use` or function)
is left out: tests may reach anywhere. Every other `cfg` is read as if on, as with all
features.

Cycles are the strongly connected components of more than one node, at two granularities:
between files, and between the crate's top-level modules (`a::b` naming `c::d` is an arrow
a -> c; lib.rs is `crate`). Each is printed with its arrows and the names that make them
(file:line), so that a developer can see what to move.

This reads tokens, not a syntax tree: comments and literals are dropped first, so text in
them is never taken for a path. Macros are not expanded: a name a macro makes up without
writing it is not seen, and a name used by a module with a glob import is matched by its
spelling, whatever it stands for there.
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

# ---------------------------------------------------------------------------- lexer ----

IDENT_START = re.compile(r"[A-Za-z_\u0080-\U0010ffff]")
IDENT = re.compile(r"[A-Za-z0-9_\u0080-\U0010ffff]*")
RAW_STRING = re.compile(r'(?:br|cr|r)(#*)"')
PUNCT2 = ("::", "->", "=>")


class Token:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return f"{self.kind}:{self.text}@{self.line}"


class SourceError(Exception):
    pass


def lex(src, name="<source>"):
    """Identifiers (`id`), punctuation (`p`), literals (`lit`, text dropped) and lifetimes
    (`lt`); comments vanish."""
    tokens, i, line, n = [], 0, 1, len(src)

    def fail(what):
        raise SourceError(f"{name}:{line}: {what}")

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while depth and j < n:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            if depth:
                fail("unterminated block comment")
            line += src.count("\n", i, j)
            i = j
        elif m := RAW_STRING.match(src, i):
            end = '"' + m.group(1)
            j = src.find(end, m.end())
            if j < 0:
                fail("unterminated raw string")
            tokens.append(Token("lit", '""', line))
            line += src.count("\n", i, j)
            i = j + len(end)
        elif c == '"' or (c in "bc" and src.startswith('"', i + 1)):
            j = i + (1 if c == '"' else 2)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            if j >= n:
                fail("unterminated string")
            tokens.append(Token("lit", '""', line))
            line += src.count("\n", i, j)
            i = j + 1
        elif c == "'" or (c == "b" and src.startswith("'", i + 1)):
            j = i + (1 if c == "'" else 2)
            if j < n and src[j] == "\\":
                k = src.find("'", j + 2)
                if k < 0:
                    fail("unterminated character literal")
                tokens.append(Token("lit", "''", line))
                i = k + 1
            elif j + 1 < n and src[j + 1] == "'":
                tokens.append(Token("lit", "''", line))
                i = j + 2
            elif c == "'":
                m = IDENT.match(src, j)
                tokens.append(Token("lt", "'" + m.group(0), line))
                i = m.end()
            else:
                fail("bad byte literal")
        elif src.startswith("r#", i) and i + 2 < n and IDENT_START.match(src[i + 2]):
            m = IDENT.match(src, i + 2)
            tokens.append(Token("id", m.group(0), line))
            i = m.end()
        elif IDENT_START.match(c):
            m = IDENT.match(src, i)
            tokens.append(Token("id", m.group(0), line))
            i = m.end()
        elif c.isdigit():
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_" or (src[j] == "." and src[j + 1 : j + 2].isdigit())):
                j += 1
            tokens.append(Token("lit", "0", line))
            i = j
        elif src.startswith(PUNCT2, i):
            tokens.append(Token("p", src[i : i + 2], line))
            i += 2
        else:
            tokens.append(Token("p", c, line))
            i += 1
    return tokens


# ----------------------------------------------------------------------- structure ----

OPEN, CLOSE = "([{", ")]}"
ITEM_WORDS = {
    "pub", "use", "mod", "fn", "struct", "enum", "union", "trait", "type", "const", "static",
    "impl", "unsafe", "async", "extern", "macro_rules", "auto", "default",
}
DEF_WORDS = {"struct", "enum", "union", "trait", "type", "fn", "const", "static"}


# Macros whose body is code generated for another crate (a proc macro's output).
QUOTING_MACROS = {"quote", "quote_spanned", "parse_quote", "parse_quote_spanned"}


def matching(tokens, i):
    """The index of the bracket closing tokens[i]."""
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t.kind == "p" and t.text in OPEN:
            depth += 1
        elif t.kind == "p" and t.text in CLOSE:
            depth -= 1
            if depth == 0:
                return j
    raise SourceError(f"line {tokens[i].line}: unbalanced {tokens[i].text}")


def item_end(tokens, i, end):
    """The index past the item, statement, field or arm starting at tokens[i]."""
    j = i
    if tokens[j].text == "pub":
        j += 1
        if j < end and tokens[j].text == "(":
            j = matching(tokens, j) + 1
    # `pub name: Type,` is a field, `pub fn` an item.
    is_item = j < end and tokens[j].kind == "id" and tokens[j].text in ITEM_WORDS
    j = i
    while j < end:
        t = tokens[j]
        if t.kind == "p":
            if t.text == "{":
                k = matching(tokens, j)
                # `fn f() {}`, `impl X {}`, `mod m {}`, `struct S {}`: the block ends it.
                if is_item and not (k + 1 < end and tokens[k + 1].text == ";"):
                    return k + 1
                j = k + 1
                continue
            if t.text in "([":
                j = matching(tokens, j) + 1
                continue
            if t.text == ";":
                return j + 1
            if t.text in CLOSE:
                return j
            if t.text == "," and not is_item:
                return j + 1
        j += 1
    return end


def cfg_requires_test(tokens):
    """Whether a `cfg(...)` predicate, its tokens without the outer parentheses, holds only
    under test: `test`, or `all(..., test, ...)`."""
    if len(tokens) == 1:
        return tokens[0].text == "test"
    if tokens and tokens[0].text == "all" and len(tokens) > 2 and tokens[1].text == "(":
        close = matching(tokens, 1)
        args, depth, start = [], 0, 2
        for j in range(2, close):
            t = tokens[j]
            if t.text in OPEN:
                depth += 1
            elif t.text in CLOSE:
                depth -= 1
            elif t.text == "," and depth == 0:
                args.append(tokens[start:j])
                start = j + 1
        args.append(tokens[start:close])
        return any(cfg_requires_test(a) for a in args if a)
    return False


class Module:
    def __init__(self, path, file, parent, inline_dirs):
        self.path = path  # ("dispatch", "method"); () for the crate root
        self.file = file
        self.parent = parent
        self.inline_dirs = inline_dirs  # where its `mod x;` looks for x.rs and x/mod.rs
        self.inline = False
        self.children = {}
        self.defs = {}  # name -> the module whose file defines it
        self.imports = []  # Import
        self.refs = []  # (segments, line): paths in code
        self.idents = []  # (name, line): lone identifiers in code, for globs and re-exports


class Import:
    def __init__(self, module, segments, alias, glob, line, public):
        self.module, self.segments, self.alias, self.glob = module, segments, alias, glob
        self.line, self.public = line, public

    @property
    def binding(self):
        if self.glob:
            return None
        return self.alias if self.alias is not None else self.segments[-1]

    @property
    def written(self):
        path = "::".join(self.segments + (["*"] if self.glob else []))
        return f"use {path}" + (f" as {self.alias}" if self.alias else "")


def parse_use_tree(tokens, i, end, prefix, out):
    """The leaves of a use tree from tokens[i:end]: (segments, alias, glob, line)."""
    segments = list(prefix)
    while i < end:
        t = tokens[i]
        if t.text == "::":
            i += 1
        elif t.text == "$" and i + 1 < end and tokens[i + 1].text == "crate":
            segments.append("crate")
            i += 2
        elif t.kind == "id" and t.text != "as":
            segments.append(t.text)
            i += 1
        elif t.text == "*":
            out.append((segments, None, True, t.line))
            return
        elif t.text == "{":
            close = matching(tokens, i)
            depth, start = 0, i + 1
            for j in range(i + 1, close + 1):
                u = tokens[j]
                if u.text in OPEN:
                    depth += 1
                elif u.text in CLOSE and j != close:
                    depth -= 1
                if (u.text == "," and depth == 0) or j == close:
                    if start < j:
                        parse_use_tree(tokens, start, j, segments, out)
                    start = j + 1
            return
        elif t.text == "as":
            alias = tokens[i + 1].text if i + 1 < end else None
            self_leaf = segments and segments[-1] == "self"
            out.append((segments[:-1] if self_leaf else segments, alias, False, t.line))
            return
        else:
            raise SourceError(f"line {t.line}: unexpected {t.text!r} in a use declaration")
    if segments and segments[-1] == "self":
        segments = segments[:-1]
    if segments:
        out.append((segments, None, False, tokens[end - 1].line if end else 0))


class Crate:
    def __init__(self, src_dir):
        self.src_dir = Path(src_dir).resolve()
        # A library's root, else a binary's.
        lib = self.src_dir / "lib.rs"
        if not lib.is_file():
            lib = self.src_dir / "main.rs"
        if not lib.is_file():
            raise SourceError(f"neither lib.rs nor main.rs in {self.src_dir}")
        self.root = Module((), lib.resolve(), None, [])
        self.modules = [self.root]
        self.test_only = []  # files reached only under cfg(test): left out
        self.load_file(self.root)

    def rel(self, path):
        return path.relative_to(self.src_dir).as_posix()

    def load_file(self, module):
        try:
            src = module.file.read_text(encoding="utf-8")
        except OSError as err:
            raise SourceError(f"{module.file}: {err}") from err
        try:
            tokens = lex(src, self.rel(module.file))
        except SourceError as err:
            raise SourceError(f"{self.rel(module.file)}: {err}") from err
        if module.file.name in ("lib.rs", "mod.rs", "main.rs"):
            module.inline_dirs = [module.file.parent]
        else:
            module.inline_dirs = [module.file.parent / module.file.stem]
        self.read_body(module, tokens, 0, len(tokens))

    def read_body(self, module, tokens, i, end):
        """Items of a module body, tokens[i:end]."""
        try:
            self._read_body(module, tokens, i, end)
        except SourceError as err:
            if str(err).startswith("line "):
                raise SourceError(f"{self.rel(module.file)}:{str(err)[5:]}") from err
            raise

    def _read_body(self, module, tokens, i, end):
        depth = 0
        attrs_test, attr_path, macro_export = False, None, False
        while i < end:
            t = tokens[i]
            # Attributes: `#[...]` and `#![...]`.
            if t.text == "#" and i + 1 < end and tokens[i + 1].text in ("[", "!"):
                open_at = i + 1 if tokens[i + 1].text == "[" else i + 2
                close = matching(tokens, open_at)
                inner = tokens[open_at + 1 : close]
                if inner and inner[0].text == "cfg" and len(inner) > 2 and inner[1].text == "(":
                    pred_close = matching(inner, 1)
                    if cfg_requires_test(inner[2:pred_close]):
                        if tokens[i + 1].text == "!":  # `#![cfg(test)]`: the whole module
                            return
                        attrs_test = True
                if inner and inner[0].text == "path" and len(inner) > 1 and inner[1].text == "=":
                    attr_path = self.path_attribute(module, tokens[open_at].line, tokens[close].line)
                if inner and inner[0].text == "macro_export":
                    macro_export = True
                i = close + 1
                continue
            if attrs_test:
                # A test-only item, statement, field or arm: not part of the graph. A test-only
                # `mod x;` names a file that is left out too.
                j = item_end(tokens, i, end)
                self.note_test_only(module, tokens, i, j, attr_path)
                i, attrs_test, attr_path, macro_export = j, False, None, False
                continue
            if (
                t.kind == "id"
                and t.text in QUOTING_MACROS
                and i + 2 < end
                and tokens[i + 1].text == "!"
                and tokens[i + 2].text in OPEN
            ):
                # Code a proc macro writes for its caller's crate: its paths are that
                # crate's, not arrows of this one.
                i = matching(tokens, i + 2) + 1
                continue
            if t.kind == "p" and t.text == "{":
                depth += 1
            elif t.kind == "p" and t.text == "}":
                depth -= 1
            elif t.kind == "id" and t.text == "mod" and depth == 0 and i + 1 < end and tokens[i + 1].kind == "id":
                name = tokens[i + 1].text
                after = tokens[i + 2] if i + 2 < end else None
                if after is not None and after.text == ";":
                    self.file_module(module, name, attr_path, t.line)
                    i += 3
                elif after is not None and after.text == "{":
                    close = matching(tokens, i + 2)
                    child = Module(module.path + (name,), module.file, module, [d / name for d in module.inline_dirs])
                    child.inline = True
                    module.children[name] = child
                    self.modules.append(child)
                    self.read_body(child, tokens, i + 3, close)
                    i = close + 1
                else:
                    i += 2
                attr_path, macro_export = None, False
                continue
            elif t.kind == "id" and t.text == "use" and (i == 0 or tokens[i - 1].text != "::"):
                semi = i + 1
                while semi < end and tokens[semi].text != ";":
                    if tokens[semi].text == "{":
                        semi = matching(tokens, semi)
                    semi += 1
                public = i > 0 and tokens[i - 1].text in ("pub", ")") and self.is_visibility(tokens, i)
                leaves = []
                parse_use_tree(tokens, i + 1, semi, [], leaves)
                for segments, alias, glob, line in leaves:
                    module.imports.append(Import(module, segments, alias, glob, line, public))
                i = semi + 1
                attr_path, macro_export = None, False
                continue
            elif t.kind == "id" and depth == 0 and t.text in DEF_WORDS and i + 1 < end and tokens[i + 1].kind == "id":
                if tokens[i + 1].text not in ITEM_WORDS | {"_"}:
                    module.defs.setdefault(tokens[i + 1].text, module)
            elif t.kind == "id" and t.text == "macro_rules" and i + 2 < end and tokens[i + 1].text == "!":
                name = tokens[i + 2].text
                # `#[macro_export]` puts the macro at the crate root, whatever its file.
                (self.root if macro_export else module).defs.setdefault(name, module)
            else:
                self.code_token(module, tokens, i)
            if t.kind == "p" and t.text in (";", "}"):
                attr_path, macro_export = None, False
            i += 1

    @staticmethod
    def is_visibility(tokens, i):
        """Whether the `use` at tokens[i] is preceded by `pub` or `pub(...)`."""
        if tokens[i - 1].text == "pub":
            return True
        j = i - 1
        if tokens[j].text == ")":
            depth = 0
            while j >= 0:
                if tokens[j].text == ")":
                    depth += 1
                elif tokens[j].text == "(":
                    depth -= 1
                    if depth == 0:
                        return j > 0 and tokens[j - 1].text == "pub"
                j -= 1
        return False

    def path_attribute(self, module, first_line, last_line):
        """The file a `#[path = "..."]` on lines first..last names. (The lexer drops the
        literal's text: it is read again from the source.)"""
        lines = module.file.read_text(encoding="utf-8").splitlines()[first_line - 1 : last_line]
        m = re.search(r'\bpath\s*=\s*"([^"]+)"', "\n".join(lines))
        if not m:
            raise SourceError(f"line {first_line}: a #[path] attribute not read")
        # Outside inline modules, relative to the file's directory; inside, to the directory
        # the inline modules stand for.
        base = module.inline_dirs[0] if module.inline else module.file.parent
        return base / m.group(1)

    def candidates(self, module, name, attr_path):
        if attr_path is not None:
            return [attr_path]
        return [p for d in module.inline_dirs for p in (d / f"{name}.rs", d / name / "mod.rs")]

    def file_module(self, module, name, attr_path, line):
        candidates = self.candidates(module, name, attr_path)
        found = [p for p in candidates if p.is_file()]
        if not found:
            listed = ", ".join(self.rel(p) if p.is_relative_to(self.src_dir) else str(p) for p in candidates)
            raise SourceError(f"{self.rel(module.file)}:{line}: mod {name}: no file ({listed})")
        child = Module(module.path + (name,), found[0].resolve(), module, [])
        module.children[name] = child
        self.modules.append(child)
        self.load_file(child)

    def note_test_only(self, module, tokens, i, j, attr_path):
        if tokens[i].text == "mod" and j - i == 3 and tokens[i + 1].kind == "id":
            found = self.candidates(module, tokens[i + 1].text, attr_path)
            self.test_only += [p.resolve() for p in found if p.is_file()]

    def code_token(self, module, tokens, i):
        """Record the path starting at tokens[i], if one does."""
        t = tokens[i]
        if t.kind != "id":
            return
        prev = tokens[i - 1].text if i > 0 else ""
        if prev in ("::", ".") or (prev == "$" and t.text != "crate"):
            return
        segments, j = [t.text], i
        while j + 2 < len(tokens) and tokens[j + 1].text == "::" and tokens[j + 2].kind == "id":
            segments.append(tokens[j + 2].text)
            j += 2
        if len(segments) > 1:
            module.refs.append((segments, t.line))
        elif t.text not in KEYWORDS:
            module.idents.append((t.text, t.line))


KEYWORDS = set(
    "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod "
    "move mut pub ref return self Self static struct super trait true type union unsafe use where while".split()
)

# ---------------------------------------------------------------------- resolution ----


class Graph:
    def __init__(self, crate):
        self.crate = crate
        self.resolving = set()
        # (from file, to file) -> [(line, written)]
        self.edges = defaultdict(list)
        self.build()

    def lookup(self, module, name):
        """What `name` is in `module`'s namespace: ("module", m), ("item", defining module),
        or None."""
        key = (id(module), name)
        if key in self.resolving:
            return None
        self.resolving.add(key)
        try:
            if name in module.children:
                return ("module", module.children[name])
            if name in module.defs:
                return ("item", module.defs[name])
            named = [imp for imp in module.imports if imp.binding == name]
            if named:
                # An explicit import shadows a glob's name; one from outside the crate is None.
                for imp in named:
                    found = self.resolve(imp.module, imp.segments)
                    if found is not None:
                        return found
                return None
            for imp in module.imports:
                if imp.glob:
                    source = self.resolve(imp.module, imp.segments)
                    if source and source[0] == "module":
                        found = self.lookup(source[1], name)
                        if found is not None:
                            return found
            return None
        finally:
            self.resolving.discard(key)

    def resolve(self, module, segments):
        """What a path written in `module` names, or None for anything outside the crate.
        With a (module, name) pair: ("item", the module defining it); a module: ("module", m)."""
        first, rest = segments[0], segments[1:]
        if first == "crate":
            current = ("module", self.crate.root)
        elif first == "self":
            current = ("module", module)
        elif first == "super":
            if module.parent is None:
                return None
            current = ("module", module.parent)
        else:
            current = self.lookup(module, first)
            if current is None:
                return None
        for seg in rest:
            if current[0] != "module":
                break
            here = current[1]
            if seg == "super":
                if here.parent is None:
                    return None
                current = ("module", here.parent)
            elif seg == "self":
                continue
            else:
                found = self.lookup(here, seg)
                # Unknown in a module of the crate: an item its code makes another way (a
                # macro's), taken as defined there.
                current = found if found is not None else ("item", here)
        return current

    def edge(self, module, target, line, written):
        if target and target[0] == "item" and target[1].file != module.file:
            self.edges[(module.file, target[1].file)].append((line, written))

    def build(self):
        for module in self.crate.modules:
            local = set(module.defs) | set(module.children)
            # A private `use` is written for the module's code: it is the arrow. A re-export
            # (`pub use`, `pub(crate) use`, ...) only passes a name on, and paths through it
            # lead past it; it is an arrow where the module's own code uses the name.
            imported = {imp.binding for imp in module.imports if imp.binding and not imp.public}
            passed_on = {imp.binding for imp in module.imports if imp.binding and imp.public} - imported
            for imp in module.imports:
                if not imp.public:
                    self.edge(module, self.resolve(module, imp.segments), imp.line, imp.written)
            for segments, line in module.refs:
                first = segments[0]
                if first not in ("crate", "self", "super"):
                    known = self.lookup(module, first)
                    if known is None or (known[0] == "item" and first in local | imported):
                        continue
                target, written = self.resolve_written(module, segments)
                self.edge(module, target, line, written)
            has_glob = any(imp.glob for imp in module.imports)
            for name, line in module.idents:
                if name in local or name in imported or not (has_glob or name in passed_on):
                    continue
                found = self.lookup(module, name)
                if found is not None:
                    self.edge(module, found, line, name)

    def resolve_written(self, module, segments):
        """The target of a path in code, and the path as written up to the item it names."""
        for n in range(1, len(segments) + 1):
            target = self.resolve(module, segments[:n])
            if target is None or target[0] == "item":
                return target, "::".join(segments[:n])
        return self.resolve(module, segments), "::".join(segments)


# -------------------------------------------------------------------------- cycles ----


def strongly_connected(nodes, arrows):
    """Tarjan's components of more than one node, each sorted, in a stable order."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    succ = defaultdict(list)
    for a, b in arrows:
        succ[a].append(b)

    def visit(v):
        work = [(v, iter(sorted(succ[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, children = work[-1]
            advanced = False
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(succ[w]))))
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out, key=lambda c: (-len(c), c))


def grouped(refs):
    """References on one line as one: `use a::b::{C, D}` for two leaves of one `use`."""
    by_where = defaultdict(list)
    for where, written in refs:
        if written not in by_where[where]:
            by_where[where].append(written)
    out = []
    for where, written in by_where.items():
        prefixes = {w.rsplit("::", 1)[0] for w in written}
        if len(written) > 1 and len(prefixes) == 1 and all(w.startswith("use ") and "::" in w for w in written):
            names = ", ".join(sorted(w.rsplit("::", 1)[1] for w in written))
            out.append((where, f"{prefixes.pop()}::{{{names}}}"))
        else:
            out.append((where, "; ".join(written)))
    return out


def report_cycles(title, components, arrows, label):
    lines = [f"{title}: {len(components)} cycle{'s' if len(components) != 1 else ''}"]
    for n, component in enumerate(components, 1):
        members = set(component)
        lines.append("")
        lines.append(f"cycle {n}: {len(component)} {label}: {', '.join(component)}")
        for (a, b), refs in sorted(arrows.items()):
            if a in members and b in members:
                lines.append(f"  {a} -> {b}  ({len(refs)} reference{'s' if len(refs) != 1 else ''})")
                for where, written in grouped(refs):
                    lines.append(f"      {where}  {written}")
    return lines


def top_level(module_path_of_file, file):
    path = module_path_of_file[file]
    return path[0] if path else "crate"


def shown(path):
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)


def analyse(src_dir):
    """(report lines, whether any cycle was found, the arrows between files)."""
    crate = Crate(src_dir)
    graph = Graph(crate)
    rel = crate.rel
    files = {m.file for m in crate.modules}
    # A file's module path: the path of the module its file defines (not an inline one's).
    path_of = {}
    for m in crate.modules:
        if m.file not in path_of or len(m.path) < len(path_of[m.file]):
            path_of[m.file] = m.path

    file_arrows = defaultdict(list)
    module_arrows = defaultdict(list)
    for (a, b), refs in graph.edges.items():
        seen = set()
        for line, written in sorted(refs):
            if (line, written) in seen:
                continue
            seen.add((line, written))
            file_arrows[(rel(a), rel(b))].append((f"{rel(a)}:{line}", written))
        ta, tb = top_level(path_of, a), top_level(path_of, b)
        if ta != tb:
            for line, written in sorted(set(refs)):
                module_arrows[(ta, tb)].append((f"{rel(a)}:{line}", written))
    for key in module_arrows:
        module_arrows[key].sort(key=lambda r: (r[0].split(":")[0], int(r[0].rsplit(":", 1)[1]), r[1]))

    file_cycles = strongly_connected({rel(f) for f in files}, file_arrows)
    module_cycles = strongly_connected({top_level(path_of, f) for f in files}, module_arrows)
    head = f"{shown(crate.src_dir)}: {len(files)} files, {len(file_arrows)} arrows between files"
    if crate.test_only:
        head += f" (left out, test-only: {', '.join(sorted(rel(p) for p in set(crate.test_only)))})"
    out = [head]
    out.append("")
    out += report_cycles("between files", file_cycles, file_arrows, "files")
    out.append("")
    out += report_cycles("between top-level modules", module_cycles, module_arrows, "modules")
    return out, bool(file_cycles or module_cycles), file_arrows


def main(argv):
    args = argv[1:]
    dump = "--edges" in args
    args = [a for a in args if a != "--edges"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print(f"usage: {Path(argv[0]).name} [--edges] [SRC_DIR]", file=sys.stderr)
        return 2
    src = Path(args[0]) if args else Path(__file__).resolve().parent.parent / "mcp-runtime" / "src"
    try:
        report, cyclic, arrows = analyse(src)
    except SourceError as err:
        print(f"module_cycles.py: {err}", file=sys.stderr)
        return 2
    if dump:
        for (a, b), refs in sorted(arrows.items()):
            print(f"{a} -> {b}")
            for where, written in refs:
                print(f"    {where}  {written}")
        print()
    print("\n".join(report))
    return 1 if cyclic else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
