//! The catalog snapshot: everything a server shows clients before any call
//! (the `server/discover` result and every tool, prompt, resource and
//! template definition) as one JSON document, sorted and formatted the
//! same way every time, written by `build()` when the command line asks
//! (`--dump-catalog`), before `main` goes on, or by the serve helpers
//! instead of serving when the builder does.
//!
//! It is built from the definitions `tools/list`, `prompts/list`,
//! `resources/list` and `resources/templates/list` send (serialized once,
//! when the server is built) and from the discover result the server
//! answers, so it is exactly what clients of the current protocol see.
//! Server info (name, version) is left out: a release would otherwise
//! change the snapshot without changing the API.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::PathBuf;

/// The command-line flag [`ServerBuilder::build`](crate::ServerBuilder::build)
/// answers: `--dump-catalog` writes the catalog to standard output,
/// `--dump-catalog=PATH` to a file, and ends the process.
pub const DUMP_CATALOG_FLAG: &str = "--dump-catalog";

/// Where a catalog snapshot goes instead of serving.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogDump {
    /// Standard output.
    Stdout,
    /// A file, created or replaced.
    File(PathBuf),
}

impl CatalogDump {
    /// The dump `args` ask for: the first `--dump-catalog` or
    /// `--dump-catalog=PATH` among them (any other argument is ignored).
    ///
    /// ```
    /// use mcp_runtime::server::CatalogDump;
    /// assert_eq!(CatalogDump::from_args(["serve", "--dump-catalog"]), Some(CatalogDump::Stdout));
    /// assert_eq!(CatalogDump::from_args(["--dump-catalog=c.json"]), Some(CatalogDump::File("c.json".into())));
    /// assert_eq!(CatalogDump::from_args(["--stdio"]), None);
    /// ```
    pub fn from_args<I>(args: I) -> Option<CatalogDump>
    where
        I: IntoIterator,
        I::Item: Into<OsString>,
    {
        args.into_iter().find_map(|arg| {
            let arg = arg.into();
            let text = arg.to_str()?;
            if text == DUMP_CATALOG_FLAG {
                return Some(CatalogDump::Stdout);
            }
            let path = text.strip_prefix(DUMP_CATALOG_FLAG)?.strip_prefix('=')?;
            Some(if path.is_empty() || path == "-" { CatalogDump::Stdout } else { CatalogDump::File(path.into()) })
        })
    }

    /// The dump this process's command line asks for (its arguments after
    /// the program name), so that `main` can skip setup a dump does not
    /// need, such as opening a database or connecting to Redis.
    pub fn from_process_args() -> Option<CatalogDump> {
        Self::from_args(std::env::args_os().skip(1))
    }

    /// Writes `text`, a catalog snapshot, here.
    pub(crate) fn write_text(&self, text: &str) -> std::io::Result<()> {
        match self {
            CatalogDump::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes())?;
                out.flush()
            }
            CatalogDump::File(path) => std::fs::write(path, text),
        }
    }
}
