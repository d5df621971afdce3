#!/usr/bin/env python3
"""The public API of a documented crate, read from rustdoc's HTML.

    public_api.py DOC_DIR CRATE OUT_FILE     the list into OUT_FILE, its counts on stdout

DOC_DIR is cargo's `target/doc`, CRATE the library's name (`mcp_runtime`). One line per
item, its kind, a space and its path, sorted by path (a type's own line, then the traits it
implements, then its members):

    mod mcp_runtime::auth                       also struct, enum, union, trait, type (an
    struct mcp_runtime::Server                  alias), fn, const, static, macro, attr and
    impl mcp_runtime::Server: Clone             derive; `impl` a trait the type implements,
    impl mcp_runtime::Server: !UnwindSafe       or an auto trait it lacks (one users can name)
    fn mcp_runtime::Server::serve_http          a method, associated function or trait method
    const mcp_runtime::SchemaProfile::ALL       an associated constant (`type`: an associated type)
    field mcp_runtime::State::0                 a public field (of a variant: E::V::f)
    variant mcp_runtime::Eras::Both
    use mcp_runtime::serde -> serde             a re-export rustdoc shows as one, not inlined

Every feature is documented (the caller runs `cargo doc --all-features`); `#[doc(hidden)]`
items are not public API and not listed. A trait implementation is named by its trait, not
its bounds, and a type alias lists no members: the list is of names, signatures are for
cargo-semver-checks.

Rustdoc's JSON output, which would be the sturdier source, needs a nightly compiler; its HTML
is what stable offers. The module pages are walked from the crate's index.html, so an item
has the path a user writes, inlined re-exports included; all.html, rustdoc's own list of the
crate's items, is then checked against the walk, so an item this reader fails to reach stops
it instead of silently leaving the list. The layout read here is rustdoc's of the pinned
toolchain: a new toolchain may need this reader adjusted, never a hand-edited list.
"""

import html
import re
import sys
from pathlib import Path

# A module page's item classes, as rustdoc names them, and the kind written in the list.
ITEM_KINDS = {
    "mod": "mod",
    "struct": "struct",
    "enum": "enum",
    "union": "union",
    "trait": "trait",
    "traitalias": "traitalias",
    "type": "type",
    "fn": "fn",
    "constant": "const",
    "static": "static",
    "macro": "macro",
    "attr": "attr",
    "derive": "derive",
    "primitive": "primitive",
    "keyword": "keyword",
}
TYPE_KINDS = {"struct", "enum", "union", "trait", "type"}
# The auto traits a user can name; their absence is part of a type's contract. (rustdoc also
# shows Freeze and UnsafeUnpin, which stable code cannot name.)
AUTO_TRAITS = {"Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"}
# Marker traits the compiler implements with a derive, which no stable code can name.
UNNAMEABLE_TRAITS = {"StructuralPartialEq"}
# Sections of a trait's page that describe other types, not the trait's own items.
TRAIT_FOREIGN_SECTIONS = {
    "dyn-compatibility", "object-safety", "foreign-impls", "implementors", "synthetic-implementors",
}

SECTION_RE = re.compile(r'<h2 id="([^"]+)" class="[^"]*\bsection-header\b[^"]*">')
ITEM_RE = re.compile(r'<dt(?: [^>]*)?><a class="(\w+)" href="([^"]+)" title="[^"]*">(.*?)</a>', re.S)
REEXPORT_RE = re.compile(r'<dt id="reexport\.[^"]*"><code>(.*?)</code></dt>', re.S)
LINK_TITLE_RE = re.compile(r'<a [^>]*title="(\w+) ([^"]+)"[^>]*>[^<]*</a>(?:\s+as\s+\w+)?;$', re.S)
IMPL_HEADER_RE = re.compile(r'<h3 class="code-header">(.*?)</h3>', re.S)
ANCHOR_RE = re.compile(r'\bid="(method|tymethod|associatedconstant|associatedtype|structfield|variant)\.([^"]+)"')


class ReadError(Exception):
    pass


def text(fragment):
    """The text of an HTML fragment, tags dropped and whitespace collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment))).strip()


def sections(page):
    """{section id: its HTML} for the `section-header` h2s of a page."""
    parts = SECTION_RE.split(page)
    return dict(zip(parts[1::2], parts[2::2]))


def trait_of_impl(header):
    """`Clone` of `impl<T: Clone> Clone for Json<T>`, `!Send` of `impl !Send for X`."""
    rest = re.sub(r"^(unsafe )?impl", "", header).lstrip()
    depth, i, start = 0, 0, 0
    while i < len(rest):
        if rest.startswith("->", i):  # a bound like `F: Fn() -> T`: no closing bracket
            i += 2
            continue
        c = rest[i]
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
            if depth == 0 and start == 0 and rest.startswith("<"):
                start = i + 1  # past the impl's own generics
        elif depth == 0 and rest.startswith(" for ", i):
            return rest[start:i].strip()
        i += 1
    raise ReadError(f"an impl header without ` for `: {header!r}")


def members(page, kind, path):
    """The lines of a type's or trait's own members, read from its page."""
    found = set()
    by_section = sections(page)
    if kind == "trait":
        wanted = [html_ for sid, html_ in by_section.items() if sid not in TRAIT_FOREIGN_SECTIONS]
        # The trait's own docs come before its first section: no anchors of members there.
    else:
        wanted = [by_section.get(s, "") for s in ("implementations", "fields", "variants")]
    for fragment in wanted:
        for anchor, name in ANCHOR_RE.findall(fragment):
            # rustdoc suffixes a repeated anchor with `-1`, `-2`, ...; names have no `-`.
            name = re.sub(r"-\d+$", "", name)
            if anchor == "variant":
                variant, _, field = name.partition(".field.")
                # rustdoc anchors a tuple variant's fields only when one has docs: positions
                # are left out, so that documenting one does not change the list.
                if name.endswith(".fields") or field.isdigit():
                    continue
                if field:
                    found.add(("field", f"{path}::{variant}::{field}", ""))
                else:
                    found.add(("variant", f"{path}::{variant}", ""))
            elif anchor == "structfield":
                found.add(("field", f"{path}::{name}", ""))
            elif anchor == "associatedtype":
                found.add(("type", f"{path}::{name}", ""))
            elif anchor == "associatedconstant":
                found.add(("const", f"{path}::{name}", ""))
            else:
                found.add(("fn", f"{path}::{name}", ""))
    if kind != "trait":
        for header in IMPL_HEADER_RE.findall(by_section.get("trait-implementations", "")):
            trait = trait_of_impl(text(header))
            if trait not in UNNAMEABLE_TRAITS:
                found.add(("impl", path, f": {trait}"))
        for header in IMPL_HEADER_RE.findall(by_section.get("synthetic-implementations", "")):
            trait = trait_of_impl(text(header))
            if trait.startswith("!") and trait[1:] in AUTO_TRAITS:
                found.add(("impl", path, f": {trait}"))
    return found


def reexport(code, module_path):
    """The line of a `pub use ...;` that rustdoc shows as a re-export: `use PATH -> SOURCE`."""
    written = text(code)
    m = re.fullmatch(r"pub use (.+?)(?: as (\w+))?;", written)
    if not m:
        raise ReadError(f"{module_path}: a re-export not read: {written!r}")
    source, alias = m.group(1), m.group(2)
    name = alias or source.rsplit("::", 1)[-1]
    link = LINK_TITLE_RE.search(code)
    target = link.group(2) if link else source.lstrip(":")
    if alias is None and link is None and source.endswith("*"):
        target = source
    return ("use", f"{module_path}::{name}", f" -> {target}")


def walk(doc_dir, crate):
    """Every line of the crate's list, and every page the walk reached."""
    root = Path(doc_dir) / crate
    if not (root / "index.html").is_file():
        raise ReadError(f"{root}/index.html missing: was the crate documented (cargo doc -p ...)?")
    lines, pages = set(), set()
    queue = [(root / "index.html", crate)]
    seen_modules = set()
    while queue:
        index, module_path = queue.pop()
        if index in seen_modules:
            continue
        seen_modules.add(index)
        page = index.read_text(encoding="utf-8")
        for sid, fragment in sections(page).items():
            if sid == "reexports":
                for code in REEXPORT_RE.findall(fragment):
                    lines.add(reexport(code, module_path))
                continue
            for cls, href, name_html in ITEM_RE.findall(fragment):
                if cls not in ITEM_KINDS:
                    raise ReadError(f"{index}: an item of unknown class {cls!r} ({href})")
                kind, name = ITEM_KINDS[cls], text(name_html)
                path = f"{module_path}::{name}"
                target = (index.parent / href).resolve()
                lines.add((kind, path, ""))
                pages.add(target)
                if kind == "mod":
                    queue.append((target, path))
                elif kind in TYPE_KINDS - {"type"}:
                    lines |= members(target.read_text(encoding="utf-8"), kind, path)
    return lines, pages


def all_items(doc_dir, crate):
    """The pages all.html lists."""
    root = Path(doc_dir) / crate
    page = (root / "all.html").read_text(encoding="utf-8")
    return {(root / href).resolve() for href in re.findall(r'<li><a href="([^"]+)">', page)}


def public_api(doc_dir, crate):
    lines, pages = walk(doc_dir, crate)
    missed = sorted(str(p.relative_to(Path(doc_dir).resolve())) for p in all_items(doc_dir, crate) - pages)
    if missed:
        raise ReadError("all.html lists items the module pages did not lead to:\n  " + "\n  ".join(missed))
    # A type's own line before the traits it implements, then its members.
    return sorted(lines, key=lambda line: (line[1], line[0] == "impl", line[0], line[2]))


def counts(lines):
    """(lines, names at the crate root, public types): structs, enums, unions, traits and
    type aliases, a trait's associated types not included."""
    traits = {path for kind, path, _ in lines if kind == "trait"}
    root = {path for kind, path, _ in lines if kind not in {"impl", "field", "variant"} and path.count("::") == 1}
    types = [path for kind, path, _ in lines if kind in TYPE_KINDS and path.rsplit("::", 1)[0] not in traits]
    return len(lines), len(root), len(types)


def main(argv):
    if len(argv) != 4:
        sys.exit(f"usage: {argv[0]} DOC_DIR CRATE OUT_FILE")
    doc_dir, crate, out = argv[1:]
    try:
        lines = public_api(doc_dir, crate)
    except (ReadError, OSError) as err:
        sys.exit(f"public_api.py: {crate}: {err}")
    with open(out, "w", encoding="utf-8") as file:
        file.writelines(f"{kind} {path}{detail}\n" for kind, path, detail in lines)
    total, root, types = counts(lines)
    print(f"{total} lines, {root} names at the crate root, {types} public types")


if __name__ == "__main__":
    main(sys.argv)
