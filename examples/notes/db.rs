//! The notebook's storage: one SQLite file, created on first use.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::Serialize;

/// A note as tools return it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Note {
    /// The note's number, used in `notes://{id}`.
    pub(crate) id: i64,
    /// A short title.
    pub(crate) title: String,
    /// The text, in Markdown.
    pub(crate) body: String,
    /// Lower-case tags.
    pub(crate) tags: Vec<String>,
}

/// A handle on the database, shared by every request.
#[derive(Clone)]
pub(crate) struct Db {
    conn: Arc<Mutex<Connection>>,
}

/// A failure of the storage, shown to the model as a tool error.
#[derive(Debug)]
pub(crate) struct DbError(String);

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the notebook could not be read or written: {}", self.0)
    }
}

impl std::error::Error for DbError {}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError(e.to_string())
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tags (note INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE, tag TEXT NOT NULL,
    PRIMARY KEY (note, tag));
PRAGMA foreign_keys = ON;
";

impl Db {
    /// Opens (or creates) the notebook at `path`, with a welcome note the
    /// first time.
    pub(crate) fn open(path: &Path) -> Result<Db, DbError> {
        let conn = Connection::open(path)?;
        conn.execute_batch(SCHEMA)?;
        let db = Db { conn: Arc::new(Mutex::new(conn)) };
        if db.count()? == 0 {
            db.add(
                "Welcome",
                "This notebook lives in a SQLite file. Ask the assistant to add, search, tag or delete notes.",
                &["help".to_owned()],
            )?;
        }
        Ok(db)
    }

    /// Runs `f` on the connection on a blocking thread, so slow disks never
    /// stall the async runtime.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Db) -> Result<T, DbError> + Send + 'static,
    ) -> Result<T, DbError> {
        let db = self.clone();
        // A blocking thread does not inherit the current span: made here, a
        // child of the request's, and entered there.
        let span = tracing::info_span!("db.query", db.system.name = "sqlite");
        tokio::task::spawn_blocking(move || span.in_scope(|| f(&db))).await.map_err(|e| DbError(e.to_string()))?
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn count(&self) -> Result<i64, DbError> {
        Ok(self.conn().query_row("SELECT count(*) FROM notes", [], |r| r.get(0))?)
    }

    pub(crate) fn add(&self, title: &str, body: &str, tags: &[String]) -> Result<Note, DbError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute("INSERT INTO notes (title, body) VALUES (?1, ?2)", params![title, body])?;
        let id = tx.last_insert_rowid();
        let mut clean: Vec<String> = tags.iter().map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty()).collect();
        clean.sort();
        clean.dedup();
        for tag in &clean {
            tx.execute("INSERT INTO tags (note, tag) VALUES (?1, ?2)", params![id, tag])?;
        }
        tx.commit()?;
        Ok(Note { id, title: title.to_owned(), body: body.to_owned(), tags: clean })
    }

    pub(crate) fn get(&self, id: i64) -> Result<Option<Note>, DbError> {
        let conn = self.conn();
        let found = conn
            .query_row("SELECT title, body FROM notes WHERE id = ?1", [id], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .optional()?;
        let Some((title, body)) = found else { return Ok(None) };
        let mut stmt = conn.prepare("SELECT tag FROM tags WHERE note = ?1 ORDER BY tag")?;
        let tags = stmt.query_map([id], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
        Ok(Some(Note { id, title, body, tags }))
    }

    /// Notes whose title or body contains `query` (case-insensitive), newest first.
    pub(crate) fn search(&self, query: &str, tag: Option<&str>, limit: u32) -> Result<Vec<Note>, DbError> {
        let ids: Vec<i64> = {
            let conn = self.conn();
            let pattern = format!("%{}%", query.replace('%', "\\%").replace('_', "\\_"));
            let mut stmt = conn.prepare(
                "SELECT id FROM notes WHERE (title LIKE ?1 ESCAPE '\\' OR body LIKE ?1 ESCAPE '\\')
                 AND (?2 IS NULL OR id IN (SELECT note FROM tags WHERE tag = ?2)) ORDER BY id DESC LIMIT ?3",
            )?;
            stmt.query_map(params![pattern, tag, limit], |r| r.get(0))?.collect::<Result<_, _>>()?
        };
        ids.into_iter().filter_map(|id| self.get(id).transpose()).collect()
    }

    pub(crate) fn delete(&self, id: i64) -> Result<bool, DbError> {
        Ok(self.conn().execute("DELETE FROM notes WHERE id = ?1", [id])? > 0)
    }

    pub(crate) fn tag(&self, id: i64, tag: &str) -> Result<bool, DbError> {
        let tag = tag.trim().to_lowercase();
        if self.get(id)?.is_none() {
            return Ok(false);
        }
        self.conn().execute("INSERT OR IGNORE INTO tags (note, tag) VALUES (?1, ?2)", params![id, tag])?;
        Ok(true)
    }

    pub(crate) fn tags(&self) -> Result<Vec<String>, DbError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT DISTINCT tag FROM tags ORDER BY tag")?;
        let tags = stmt.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
        Ok(tags)
    }

    pub(crate) fn ids(&self) -> Result<Vec<i64>, DbError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT id FROM notes ORDER BY id")?;
        let ids = stmt.query_map([], |r| r.get(0))?.collect::<Result<Vec<i64>, _>>()?;
        Ok(ids)
    }
}
