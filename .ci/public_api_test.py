#!/usr/bin/env python3
"""Tests of public_api.py: a small crate documented by the pinned rustdoc, read back.

    python3 .ci/public_api_test.py

The crate is built in a temporary directory (a few seconds: no dependencies), so the reader
is tested on the HTML the toolchain really writes, not on a copy that could go stale.
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import public_api  # noqa: E402

LIB_RS = r"""
//! A crate with one item of each kind.

pub mod shapes {
    //! Shapes.

    /// A point.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Point {
        /// Across.
        pub x: f64,
        y: f64,
    }

    impl Point {
        /// At the origin.
        pub const ORIGIN: Point = Point { x: 0.0, y: 0.0 };

        /// A point.
        pub fn new(x: f64, y: f64) -> Self {
            Point { x, y }
        }

        /// Down.
        pub fn y(&self) -> f64 {
            self.y
        }

        #[doc(hidden)]
        pub fn hidden(&self) {}

        #[allow(dead_code)]
        fn private(&self) {}
    }

    impl Point {
        /// Another impl block, the same type.
        pub fn moved(&self, by: f64) -> Self {
            Point { x: self.x + by, y: self.y }
        }
    }

    /// A shape.
    pub enum Shape {
        /// Round.
        Circle {
            /// Its radius.
            radius: f64,
        },
        /// A point.
        Dot(
            /// Where.
            Point,
        ),
        /// Nothing.
        Empty,
    }

    /// Something with an area.
    pub trait Area {
        /// Its unit.
        type Unit;
        /// How many sides.
        const SIDES: u32;
        /// The area.
        fn area(&self) -> f64;
        /// Twice the area.
        fn twice(&self) -> f64 {
            2.0 * self.area()
        }
    }

    impl Area for Point {
        type Unit = ();
        const SIDES: u32 = 0;
        fn area(&self) -> f64 {
            0.0
        }
    }

    /// Made from something.
    pub trait Make<T> {}

    impl<F: Fn() -> u8> Make<F> for Point {}

    /// Several points.
    pub type Points = Vec<Point>;

    /// Bits.
    pub union Bits {
        /// As an integer.
        pub int: u32,
        /// As a float.
        pub float: f32,
    }

    /// Zero.
    pub static ZERO: u32 = 0;

    /// Not to be shared between threads.
    pub struct Local(pub std::cell::Cell<u8>);
}

mod home {
    /// Defined in a private module, inlined where it is re-exported.
    pub struct Inlined;

    /// Inlined too.
    pub fn helper() {}
}

pub use home::{Inlined, helper};
pub use shapes::Point;
pub use shapes::Shape as Figure;

#[doc(hidden)]
pub mod internals {
    /// Not public API.
    pub struct Secret;
}

/// Squares.
#[macro_export]
macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

/// The answer.
pub const ANSWER: u32 = 42;

/// Generic.
pub fn free<T: Clone>(_value: T) {}
"""

EXPECTED = """\
const sample::ANSWER
use sample::Figure -> sample::shapes::Shape
struct sample::Inlined
use sample::Point -> sample::shapes::Point
fn sample::free
fn sample::helper
mod sample::shapes
trait sample::shapes::Area
const sample::shapes::Area::SIDES
type sample::shapes::Area::Unit
fn sample::shapes::Area::area
fn sample::shapes::Area::twice
union sample::shapes::Bits
field sample::shapes::Bits::float
field sample::shapes::Bits::int
struct sample::shapes::Local
impl sample::shapes::Local: !RefUnwindSafe
impl sample::shapes::Local: !Sync
field sample::shapes::Local::0
trait sample::shapes::Make
struct sample::shapes::Point
impl sample::shapes::Point: Area
impl sample::shapes::Point: Clone
impl sample::shapes::Point: Debug
impl sample::shapes::Point: Make<F>
impl sample::shapes::Point: PartialEq
const sample::shapes::Point::ORIGIN
fn sample::shapes::Point::moved
fn sample::shapes::Point::new
field sample::shapes::Point::x
fn sample::shapes::Point::y
type sample::shapes::Points
enum sample::shapes::Shape
variant sample::shapes::Shape::Circle
field sample::shapes::Shape::Circle::radius
variant sample::shapes::Shape::Dot
variant sample::shapes::Shape::Empty
static sample::shapes::ZERO
macro sample::square
"""


def document(lib_rs, workdir):
    """cargo doc of a crate `sample` holding lib_rs; its doc directory."""
    crate = Path(workdir) / "sample"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "sample"\nversion = "0.1.0"\nedition = "2024"\n\n[workspace]\n'
    )
    (crate / "src" / "lib.rs").write_text(lib_rs)
    # The repository's toolchain, whose rustdoc writes the pages the real lists are read from.
    toolchain = Path(__file__).resolve().parent.parent / "rust-toolchain.toml"
    (crate / "rust-toolchain.toml").write_text(toolchain.read_text())
    target = Path(workdir) / "target"
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), RUSTDOCFLAGS="")
    subprocess.run(["cargo", "doc", "--quiet", "--no-deps", "--lib"], cwd=crate, env=env, check=True)
    return target / "doc"


def render(lines):
    return "".join(f"{kind} {path}{detail}\n" for kind, path, detail in lines)


class DocumentedCrate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.TemporaryDirectory()
        cls.doc = document(LIB_RS, cls.workdir.name)

    @classmethod
    def tearDownClass(cls):
        cls.workdir.cleanup()

    def test_every_item_member_and_reexport(self):
        lines = public_api.public_api(self.doc, "sample")
        self.assertEqual(render(lines), EXPECTED)

    def test_counts(self):
        lines = public_api.public_api(self.doc, "sample")
        # Root: ANSWER Figure Inlined Point free helper shapes square. Types: Area Bits Local
        # Make Point Points Shape Inlined (not Area::Unit, an associated type).
        self.assertEqual(public_api.counts(lines), (len(lines), 8, 8))

    def test_a_page_the_walk_misses_stops_the_reader(self):
        # all.html names an item no module page leads to: the walk has a gap, which must
        # not become a shorter list.
        index = self.doc / "sample" / "shapes" / "index.html"
        original = index.read_text(encoding="utf-8")
        try:
            entry = re.search(r'<dt><a class="struct" href="struct.Local.html".*?</dd>', original, re.S).group(0)
            index.write_text(original.replace(entry, ""), encoding="utf-8")
            with self.assertRaisesRegex(public_api.ReadError, r"shapes/struct\.Local\.html"):
                public_api.public_api(self.doc, "sample")
        finally:
            index.write_text(original, encoding="utf-8")

    def test_the_command_writes_the_list_and_prints_counts(self):
        out = Path(self.workdir.name) / "list.txt"
        done = subprocess.run(
            [sys.executable, str(Path(public_api.__file__)), str(self.doc), "sample", str(out)],
            capture_output=True, text=True, check=True,
        )
        self.assertEqual(done.stdout, f"{EXPECTED.count(chr(10))} lines, 8 names at the crate root, 8 public types\n")
        self.assertEqual(out.read_text(), EXPECTED)

    def test_an_undocumented_crate_is_an_error(self):
        with self.assertRaisesRegex(public_api.ReadError, "was the crate documented"):
            public_api.public_api(self.doc, "nothing_here")


class ImplHeaders(unittest.TestCase):
    def test_the_trait_of_an_impl(self):
        cases = {
            "impl Clone for Server": "Clone",
            "impl<T: Clone> Clone for Json<T>": "Clone",
            "impl<C: Call, T: Clone + Send + Sync + 'static> FromCall<C> for State<T>": "FromCall<C>",
            "impl<F: Fn() -> u8> Make<F> for Point": "Make<F>",
            "impl<'de> Deserialize<'de> for Role": "Deserialize<'de>",
            "impl<B> Service<Request<B>> for McpService where B: Body + Send + 'static": "Service<Request<B>>",
            "unsafe impl Send for Raw": "Send",
            "impl !Sync for Local": "!Sync",
            "impl From<&str> for RequestId": "From<&str>",
            "impl<F> From<F> for Handler where F: Fn(u8) -> Box<dyn Fn() -> u8>": "From<F>",
        }
        for header, trait in cases.items():
            with self.subTest(header=header):
                self.assertEqual(public_api.trait_of_impl(header), trait)

    def test_a_header_without_for_is_an_error(self):
        with self.assertRaises(public_api.ReadError):
            public_api.trait_of_impl("impl Server")


if __name__ == "__main__":
    unittest.main()
