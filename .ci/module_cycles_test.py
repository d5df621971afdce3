#!/usr/bin/env python3
"""Tests of module_cycles.py, on small crates written into temporary directories.

    python3 .ci/module_cycles_test.py
"""

import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import module_cycles  # noqa: E402


class CrateTest(unittest.TestCase):
    def crate(self, files):
        """A crate of {path under src/: source}; its src directory."""
        workdir = tempfile.TemporaryDirectory()
        self.addCleanup(workdir.cleanup)
        root = Path(workdir.name)
        for name, text in files.items():
            path = root / "src" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip("\n"))
        return root / "src"

    def run_script(self, files):
        done = subprocess.run(
            [sys.executable, str(HERE / "module_cycles.py"), str(self.crate(files))],
            capture_output=True, text=True,
        )
        return done.returncode, done.stdout, done.stderr

    def arrows(self, files):
        """{(from, to): [(file:line, written)]} between files."""
        _, _, arrows = module_cycles.analyse(self.crate(files))
        return dict(arrows)


class Cycles(CrateTest):
    def test_a_cycle_is_reported_with_its_names_and_lines(self):
        code, out, _ = self.run_script({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "use crate::b::B;\npub struct A;\n",
            "b.rs": "pub struct B;\n\npub fn f() -> crate::a::A { crate::a::A }\n",
        })
        self.assertEqual(code, 1)
        self.assertIn("between files: 1 cycle\n", out)
        self.assertIn("cycle 1: 2 files: a.rs, b.rs", out)
        self.assertIn("  a.rs -> b.rs  (1 reference)\n      a.rs:1  use crate::b::B\n", out)
        self.assertIn("  b.rs -> a.rs  (1 reference)\n      b.rs:3  crate::a::A\n", out)
        self.assertIn("between top-level modules: 1 cycle", out)
        self.assertIn("cycle 1: 2 modules: a, b", out)

    def test_no_cycle_exits_0(self):
        code, out, _ = self.run_script({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "use crate::b::B;\n",
            "b.rs": "pub struct B;\n",
        })
        self.assertEqual(code, 0, out)
        self.assertIn("between files: 0 cycles", out)
        self.assertIn("between top-level modules: 0 cycles", out)

    def test_a_cycle_between_top_level_modules_only(self):
        # a/x.rs -> b/y.rs -> a/z.rs: no file cycle, but a -> b -> a.
        code, out, _ = self.run_script({
            "lib.rs": "mod a;\nmod b;\n",
            "a/mod.rs": "mod x;\nmod z;\n",
            "a/x.rs": "use crate::b::y::Y;\n",
            "a/z.rs": "pub struct Z;\n",
            "b/mod.rs": "pub mod y;\n",
            "b/y.rs": "pub struct Y(crate::a::z::Z);\n",
        })
        self.assertEqual(code, 1)
        self.assertIn("between files: 0 cycles", out)
        self.assertIn("cycle 1: 2 modules: a, b", out)
        self.assertIn("  a -> b  (1 reference)\n      a/x.rs:1  use crate::b::y::Y\n", out)
        self.assertIn("  b -> a  (1 reference)\n      b/y.rs:1  crate::a::z::Z\n", out)


class Paths(CrateTest):
    def test_grouped_imports(self):
        arrows = self.arrows({
            "lib.rs": "mod a;\nmod c;\nmod d;\nmod user;\n",
            "a.rs": "pub struct A;\npub struct B;\npub mod inner { pub struct I; }\n",
            "c.rs": "pub fn f() {}\n",
            "d.rs": "pub struct D;\n",
            "user.rs": """
                use crate::{
                    a::{A, B, inner::{self, I as Renamed}},
                    c,
                    d::D,
                };
                fn g() { c::f(); }
            """,
        })
        self.assertEqual(sorted(arrows), [("user.rs", "a.rs"), ("user.rs", "c.rs"), ("user.rs", "d.rs")])
        self.assertEqual(
            arrows[("user.rs", "a.rs")],
            [
                ("user.rs:2", "use crate::a::A"),
                ("user.rs:2", "use crate::a::B"),
                ("user.rs:2", "use crate::a::inner::I as Renamed"),
            ],
        )
        # Importing the module `c` is no arrow; the path through it is.
        self.assertEqual(arrows[("user.rs", "c.rs")], [("user.rs:6", "c::f")])

    def test_super_and_self_paths_and_parent_child_arrows(self):
        arrows = self.arrows({
            "lib.rs": "mod server;\n",
            "server/mod.rs": """
                mod builder;
                mod quiet;
                pub struct Server;
                pub fn run() { self::builder::build(); }
            """,
            "server/builder.rs": """
                pub fn build() -> super::Server { super::Server }
            """,
            # Declared by its parent and naming nothing of it: no arrow either way.
            "server/quiet.rs": "pub fn nothing() {}\n",
        })
        self.assertEqual(
            sorted(arrows), [("server/builder.rs", "server/mod.rs"), ("server/mod.rs", "server/builder.rs")]
        )
        self.assertEqual(arrows[("server/builder.rs", "server/mod.rs")], [("server/builder.rs:1", "super::Server")])
        self.assertEqual(arrows[("server/mod.rs", "server/builder.rs")], [("server/mod.rs:4", "self::builder::build")])

    def test_super_super_and_nested_directories(self):
        arrows = self.arrows({
            "lib.rs": "mod dispatch;\n",
            "dispatch/mod.rs": "mod method;\npub struct Prepared;\n",
            "dispatch/method/mod.rs": "mod call;\n",
            "dispatch/method/call.rs": "use super::super::Prepared;\n",
        })
        self.assertEqual(arrows, {("dispatch/method/call.rs", "dispatch/mod.rs"): [
            ("dispatch/method/call.rs:1", "use super::super::Prepared")]})

    def test_reexports_lead_to_the_defining_file(self):
        code, out, _ = self.run_script({
            # lib.rs re-exports from every module, and each uses the others through the root:
            # the arrows go to the files that define, and lib.rs is in no cycle.
            "lib.rs": "mod a;\nmod b;\npub use a::A;\npub use b::B;\n",
            "a.rs": "pub struct A;\n",
            "b.rs": "use crate::A;\npub struct B(A);\n",
        })
        self.assertEqual(code, 0, out)
        arrows = self.arrows({
            "lib.rs": "mod a;\nmod b;\nmod c;\npub use a::A;\n",
            "a.rs": "pub use crate::c::Deep as A;\n",
            "b.rs": "use crate::A;\n",
            "c.rs": "pub struct Deep;\n",
        })
        self.assertEqual(sorted(arrows), [("b.rs", "c.rs")])

    def test_a_reexport_is_an_arrow_only_where_its_module_uses_it(self):
        files = {
            "lib.rs": "mod server;\n",
            "server/mod.rs": "mod builder;\npub use builder::Builder;\npub struct Server;\n",
            "server/builder.rs": "pub struct Builder(super::Server);\n",
        }
        self.assertEqual(sorted(self.arrows(files)), [("server/builder.rs", "server/mod.rs")])
        files["server/mod.rs"] += "pub fn builder() -> Builder { todo!() }\n"
        arrows = self.arrows(files)
        self.assertEqual(arrows[("server/mod.rs", "server/builder.rs")], [("server/mod.rs:4", "Builder")])

    def test_names_through_a_glob(self):
        arrows = self.arrows({
            "lib.rs": "mod protocol;\nmod user;\n",
            "protocol/mod.rs": "mod tools;\npub use tools::*;\n",
            "protocol/tools.rs": "pub struct Tool;\npub struct Unused;\n",
            "user.rs": "use crate::protocol::*;\nfn f(_: Tool) {}\n",
        })
        self.assertEqual(arrows, {("user.rs", "protocol/tools.rs"): [("user.rs:2", "Tool")]})

    def test_path_attribute_and_inline_modules(self):
        arrows = self.arrows({
            "lib.rs": "#[path = \"elsewhere/named.rs\"]\nmod odd;\nmod b;\nmod outer {\n    use crate::odd::X;\n}\n",
            "elsewhere/named.rs": "pub struct X;\npub fn g() -> crate::b::B { crate::b::B }\n",
            "b.rs": "pub struct B;\n",
        })
        self.assertEqual(sorted(arrows), [("elsewhere/named.rs", "b.rs"), ("lib.rs", "elsewhere/named.rs")])

    def test_macro_export_macros_live_at_the_root(self):
        arrows = self.arrows({
            "lib.rs": "mod macros;\nmod user;\nmod helpers;\n",
            "macros.rs": "#[macro_export]\nmacro_rules! make { () => { $crate::helpers::helper() }; }\n",
            "helpers.rs": "pub fn helper() {}\n",
            "user.rs": "fn f() { crate::make!(); }\n",
        })
        self.assertEqual(sorted(arrows), [("macros.rs", "helpers.rs"), ("user.rs", "macros.rs")])


class LeftOut(CrateTest):
    def test_test_modules_and_test_only_items_are_left_out(self):
        code, out, _ = self.run_script({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": """
                pub struct A;

                #[cfg(test)]
                mod tests {
                    use crate::b::B;
                }

                #[cfg(test)]
                mod more_tests;

                #[cfg(all(test, feature = "x"))]
                use crate::b::B;

                #[cfg(test)]
                fn helper() -> crate::b::B { crate::b::B }
            """,
            "a/more_tests.rs": "use crate::b::B;\n",
            "b.rs": "pub struct B;\npub fn f() -> crate::a::A { crate::a::A }\n",
        })
        self.assertEqual(code, 0, out)
        self.assertIn("left out, test-only: a/more_tests.rs", out)

    def test_other_cfgs_count(self):
        arrows = self.arrows({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": '#[cfg(any(test, feature = "x"))]\nuse crate::b::B;\n#[cfg(not(test))]\nuse crate::b::C;\n',
            "b.rs": "pub struct B;\npub struct C;\n",
        })
        self.assertEqual(arrows[("a.rs", "b.rs")], [("a.rs:2", "use crate::b::B"), ("a.rs:4", "use crate::b::C")])

    def test_comments_strings_and_characters_hide_nothing(self):
        arrows = self.arrows({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": r'''
                // use crate::b::B;
                /// crate::b::B in a doc comment
                /* a /* nested */ crate::b::B */
                const S: &str = "crate::b::B \" crate::b::B";
                const R: &str = r#"crate::b::B "quoted" "#;
                const BYTES: &[u8] = b"crate::b::B";
                fn quote<'a>(_: &'a str) -> char { '"' }
                fn brace() -> char { '{' }
                fn escaped() -> char { '\'' }
                pub fn real() -> crate::b::B { crate::b::B }
            ''',
            "b.rs": "pub struct B;\n",
        })
        self.assertEqual(arrows, {("a.rs", "b.rs"): [("a.rs:10", "crate::b::B")]})

    def test_outside_crates_and_local_names_are_no_arrows(self):
        arrows = self.arrows({
            "lib.rs": "mod a;\n",
            "a.rs": """
                use std::collections::HashMap;
                use serde_json::Value;
                pub enum E { One }
                pub fn f() -> Option<E> { let _m: HashMap<u8, Value> = HashMap::new(); Some(E::One) }
                impl E { pub fn g() -> Self { Self::One } }
            """,
        })
        self.assertEqual(arrows, {})

    def test_quoted_code_is_the_callers_and_no_arrow(self):
        arrows = self.arrows({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": """
                pub fn f(root: u8) -> u8 {
                    let _ = quote! { use #root as __mcp; crate::b::B };
                    let _ = quote_spanned! { span => crate::b::B };
                    crate::b::g()
                }
            """,
            "b.rs": "pub struct B;\npub fn g() -> u8 { 0 }\n",
        })
        self.assertEqual(list(arrows), [("a.rs", "b.rs")])
        self.assertEqual([written for _, written in arrows[("a.rs", "b.rs")]], ["crate::b::g"])

    def test_a_binary_crate_is_read_from_main_rs(self):
        code, out, _ = self.run_script({"main.rs": "mod a;\nfn main() { a::f() }\n", "a.rs": "pub fn f() {}\n"})
        self.assertEqual(code, 0, out)
        self.assertIn("between files: 0 cycles", out)


class Failures(CrateTest):
    def test_an_unterminated_string_is_exit_2(self):
        code, _, err = self.run_script({"lib.rs": 'const S: &str = "never closed;\n'})
        self.assertEqual(code, 2)
        self.assertIn("lib.rs:1: unterminated string", err)

    def test_a_missing_module_file_is_exit_2(self):
        code, _, err = self.run_script({"lib.rs": "mod gone;\n"})
        self.assertEqual(code, 2)
        self.assertIn("lib.rs:1: mod gone: no file (gone.rs, gone/mod.rs)", err)


class Lexer(unittest.TestCase):
    def test_lifetimes_characters_and_raw_identifiers(self):
        tokens = module_cycles.lex("fn f<'a>(r#type: &'a str) -> char { 'x' } b'\\n' br##\"a\"#b\"## 1.5 x.0")
        kinds = [(t.kind, t.text) for t in tokens]
        self.assertIn(("lt", "'a"), kinds)
        self.assertIn(("id", "type"), kinds)
        self.assertEqual([t.text for t in tokens if t.kind == "lit"], ["''", "''", '""', "0", "0"])

    def test_line_numbers_survive_multi_line_literals_and_comments(self):
        tokens = module_cycles.lex('a\n"x\ny"\n/* \n */ b\nr#"\n"# c')
        self.assertEqual([(t.text, t.line) for t in tokens if t.kind == "id"], [("a", 1), ("b", 5), ("c", 7)])


if __name__ == "__main__":
    unittest.main()
