//! Skills (the `io.modelcontextprotocol/skills` extension) from the
//! client's side: list a server's skills, get one, and load one, checking
//! every byte read against the skill's entry.
//!
//! A skill is a directory of files served as resources. Its entry (from
//! `skills/list` or `skills/get`) names every file with the SHA-256 digest
//! and the size of its bytes, or says `"dynamic"` when the files are made
//! as they are read. Listing and getting read no file: a skill's files are
//! read when it is loaded. [`Client::load_skill`] reads the `SKILL.md`,
//! checks its size, then its digest, then its front matter against the
//! entry's, and keeps the entry it loaded from. [`LoadedSkill::read`] then
//! reads only files that entry lists, each checked the same way.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_runtime::client::Error> {
//! use mcp_runtime::client::Client;
//!
//! let client = Client::http("http://127.0.0.1:3000/mcp");
//! let skills = client.skills().await?;
//! let pdf = skills.iter().find(|skill| skill.name() == Some("pdf-processing")).expect("listed");
//! let loaded = client.load_skill(pdf).await?;
//! let instructions = loaded.body();
//! let forms = loaded.read(&client, "references/FORMS.md").await?;
//! # let _ = (instructions, forms); Ok(()) }
//! ```
//!
//! The methods are [`Client`]'s: [`list_skills`](Client::list_skills) (a
//! page) and [`skills`](Client::skills) (every page),
//! [`get_skill`](Client::get_skill), [`load_skill`](Client::load_skill) and
//! [`read_directory`](Client::read_directory). They speak either era: what
//! the server declared is read from the `initialize` result of a 2025-era
//! session, or from its `server/discover` result in 2026-07-28 (the one the
//! client negotiated with, else one asked for then), once per client.
//!
//! Guarantees: no `skills/*` request goes to a server that did not declare
//! the extension, and no `resources/directory/read` to one that did not
//! declare `directoryRead: true` ([`SkillRefusal::NotDeclared`],
//! [`SkillRefusal::NoDirectoryRead`]). Bytes that fail a check are never
//! returned: the error is [`Error::Skill`], naming the file and what
//! differed. A file the held entry does not list is refused without a
//! request. The entry is held as it was given: to see a skill that changed,
//! get its entry again ([`Client::get_skill`]) and load that.
//!
//! Not guaranteed: that a skill is safe to follow. Digests are unsigned and
//! come from the same server: a match says that the bytes are the ones the
//! server listed, nothing more. The files of a `"dynamic"` skill cannot be
//! checked (only its `SKILL.md`'s front matter is); they are read as the
//! server serves them. Nothing read is cached: reading a file twice asks
//! twice.

use std::collections::{BTreeSet, HashSet};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_runtime_rules::skill::{self as rules, FILES_MAX, SIZE_MAX, SKILL_FILE};
use serde_json::{Map, Value, json};

use super::negotiation::Negotiated;
use super::skills_declared::Settings;
pub use super::skills_declared::SkillRefusal;
use super::{Client, Error};
use crate::protocol::{
    GetSkillResult, ListSkillsResult, Method, ReadDirectoryResult, ResourceBody, SKILLS_EXTENSION, Skill, SkillFile,
    SkillFiles,
};

/// The most pages of `skills/list` [`Client::skills`] follows: a listing
/// is a catalogue to show, not one to crawl.
const MAX_PAGES: usize = 100;

impl Client {
    /// `skills/list`: one page of the server's skills, from `cursor` (the
    /// previous page's `next_cursor`; `None` for the first). Reads no file
    /// of any skill. An entry that does not read as one (no `resources`,
    /// say) is left out, with a warning logged.
    ///
    /// Refused without a request ([`SkillRefusal::NotDeclared`]) when the
    /// server did not declare the extension: in `server/discover` or the
    /// `initialize` result, whichever the revision spoken has.
    pub async fn list_skills(&self, cursor: Option<&str>) -> Result<ListSkillsResult, Error> {
        let method = Method::SkillsList.name();
        self.skills_declared(method).await?;
        let params = match cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => Value::Null,
        };
        let mut page = self.request(method, params).await?;
        let Some(Value::Array(entries)) = page.get_mut("skills").map(Value::take) else {
            return Err(Error::Invalid(format!("a `{method}` result without `skills`")));
        };
        let mut listed = ListSkillsResult::default();
        listed.skills = entries.into_iter().filter_map(entry_of).collect();
        listed.next_cursor =
            page.get("nextCursor").and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_owned);
        Ok(listed)
    }

    /// `skills/list`, every page: at most 100 pages and the client's item
    /// limit ([`max_list_items`](Self::max_list_items)), and a cursor that
    /// comes back is an error rather than a loop. Reads no file of any
    /// skill. An empty or short list does not mean that the server has no
    /// other skills: [`get_skill`](Self::get_skill) gets one by its URI.
    pub async fn skills(&self) -> Result<Vec<Skill>, Error> {
        let most = self.limits.list_items();
        let (mut skills, mut cursors) = (Vec::new(), HashSet::new());
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let page = self.list_skills(cursor.as_deref()).await?;
            if skills.len().saturating_add(page.skills.len()) > most {
                return Err(Error::Invalid(format!("`skills/list` lists more than {most} skills")));
            }
            skills.extend(page.skills);
            match page.next_cursor {
                None => return Ok(skills),
                Some(next) if !cursors.insert(next.clone()) => {
                    return Err(Error::Invalid(format!(
                        "`skills/list` gave the cursor {next:?} twice: its pages loop"
                    )));
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(Error::Invalid(format!("`skills/list` still had pages after {MAX_PAGES}")))
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`,
    /// listed or not. Reads no file of it. Refused without a request when
    /// the server did not declare the extension.
    pub async fn get_skill(&self, uri: &str) -> Result<Skill, Error> {
        let method = Method::SkillsGet.name();
        self.skills_declared(method).await?;
        let got: GetSkillResult = self.typed(method, json!({ "uri": uri })).await?;
        if got.skill.uri != uri {
            return Err(Error::Invalid(format!("`{method}` of {uri} answered with the skill {}", got.skill.uri)));
        }
        Ok(got.skill)
    }

    /// Loads `skill`: reads its `SKILL.md` (`resources/read`) and checks it
    /// against the entry, its size first, then its digest (both skipped for
    /// a `"dynamic"` skill, which has none), then its front matter, field by
    /// field. The skill loaded keeps the entry, and reads only the files it
    /// lists ([`LoadedSkill::read`]).
    ///
    /// Refused before any request when the entry breaks the extension's
    /// rules: a list of files without the `SKILL.md`'s own, a digest that is
    /// not `sha256:` and 64 lowercase hex digits, a file listed twice or
    /// outside the skill's directory, or more than 512 files or 16 MiB in
    /// all (a host accepts skills up to both limits).
    pub async fn load_skill(&self, skill: &Skill) -> Result<LoadedSkill, Error> {
        let own = checked_entry(skill)?;
        let bytes = self.skill_file(&skill.uri).await?;
        if let Some(own) = own {
            verify(own, &bytes)?;
        }
        let uri = &skill.uri;
        let unreadable = |reason: String| SkillRefusal::Unreadable { uri: uri.clone(), reason };
        let text = String::from_utf8(bytes).map_err(|_| unreadable("it is not UTF-8 text".to_owned()))?;
        let frontmatter = rules::frontmatter(&text).map_err(|e| unreadable(e.to_string()))?;
        let fields = differing(&skill.frontmatter, &frontmatter);
        if !fields.is_empty() {
            return Err(SkillRefusal::Frontmatter { uri: uri.clone(), fields }.into());
        }
        let (_, body) = rules::split(&text).map_err(|e| unreadable(e.to_string()))?;
        let body_at = text.len() - body.len();
        Ok(LoadedSkill { skill: skill.clone(), text, frontmatter, body_at })
    }

    /// `resources/directory/read`: one page of the direct children of the
    /// directory at `uri` (files, and directories with the MIME type
    /// `inode/directory`), from `cursor`. Refused without a request
    /// ([`SkillRefusal::NoDirectoryRead`]) when the server did not declare
    /// `directoryRead: true`.
    ///
    /// A child listed here is not a file of a loaded skill: only the
    /// skill's entry says which files [`LoadedSkill::read`] reads.
    pub async fn read_directory(&self, uri: &str, cursor: Option<&str>) -> Result<ReadDirectoryResult, Error> {
        let method = Method::ResourcesDirectoryRead.name();
        if !self.skills_declared(method).await?.directory_read {
            return Err(SkillRefusal::NoDirectoryRead.into());
        }
        let mut params = json!({ "uri": uri });
        if let Some(cursor) = cursor {
            params["cursor"] = json!(cursor);
        }
        self.typed(method, params).await
    }

    /// The extension's settings, or [`SkillRefusal::NotDeclared`] for
    /// `method`.
    async fn skills_declared(&self, method: &'static str) -> Result<Settings, Error> {
        let declared = self.skills.get_or_try_init(|| self.declared_settings()).await?;
        declared.ok_or(Error::Skill(SkillRefusal::NotDeclared { method }))
    }

    /// What the server declared of the extension: in the `initialize`
    /// result of a 2025-era session; in the `server/discover` result kept
    /// from negotiation, or asked for now, in 2026-07-28.
    async fn declared_settings(&self) -> Result<Option<Settings>, Error> {
        let capabilities = match self.negotiated().await? {
            Negotiated::Session(session) => session.result.get("capabilities").cloned(),
            Negotiated::Stateless => {
                // Looked at, not taken: the first `discover` still returns it.
                let kept = crate::sync::lock(&self.discovered).as_ref().map(|d| d.get("capabilities").cloned());
                match kept {
                    Some(capabilities) => capabilities,
                    None => self
                        .request(Method::Discover.name(), Value::Null)
                        .await?
                        .get_mut("capabilities")
                        .map(Value::take),
                }
            }
        };
        Ok(settings_of(capabilities.as_ref()))
    }

    /// The bytes of the file at `uri` (`resources/read`): its one contents
    /// of that URI, text as UTF-8, a blob decoded.
    async fn skill_file(&self, uri: &str) -> Result<Vec<u8>, Error> {
        let unreadable = |reason: &str| SkillRefusal::Unreadable { uri: uri.to_owned(), reason: reason.to_owned() };
        let read = self.read_resource(uri).await?;
        let mut of_uri = read.contents.into_iter().filter(|contents| contents.uri == uri);
        let contents = match (of_uri.next(), of_uri.next()) {
            (Some(contents), None) => contents,
            (None, _) => return Err(unreadable("the server's answer has no contents of it").into()),
            (Some(_), Some(_)) => return Err(unreadable("the server's answer has more than one contents of it").into()),
        };
        match contents.body {
            ResourceBody::Text(text) => Ok(text.into_bytes()),
            ResourceBody::Blob(blob) => Ok(STANDARD.decode(blob).map_err(|_| unreadable("its blob is not base64"))?),
            _ => Err(unreadable("its contents are neither text nor a blob").into()),
        }
    }
}

/// A skill loaded by [`Client::load_skill`]: its `SKILL.md`, checked, and
/// the entry it was loaded from, which says which files of the skill
/// [`read`](Self::read) reads.
#[derive(Debug, Clone)]
pub struct LoadedSkill {
    skill: Skill,
    text: String,
    frontmatter: Map<String, Value>,
    /// Where the body starts in `text`, after the front matter.
    body_at: usize,
}

impl LoadedSkill {
    /// The entry the skill was loaded from.
    pub fn skill(&self) -> &Skill {
        &self.skill
    }

    /// The URI of its `SKILL.md`.
    pub fn uri(&self) -> &str {
        &self.skill.uri
    }

    /// The URI of its directory, against which paths are resolved: its
    /// `SKILL.md`'s URI without `/SKILL.md`.
    pub fn directory(&self) -> &str {
        directory_of(&self.skill.uri).unwrap_or_default()
    }

    /// The whole `SKILL.md`, front matter included.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The `SKILL.md` after its front matter: the instructions.
    pub fn body(&self) -> &str {
        &self.text[self.body_at..]
    }

    /// The `SKILL.md`'s front matter, as JSON: the entry's, which it was
    /// checked to equal.
    pub fn frontmatter(&self) -> &Map<String, Value> {
        &self.frontmatter
    }

    /// Reads a file of the skill, given by its path below the skill's
    /// directory (`references/FORMS.md`, as the `SKILL.md` links it) or by
    /// its URI, with `client` (the one the skill was loaded with).
    ///
    /// Only a file the held entry lists is read, and its bytes are
    /// checked as the `SKILL.md`'s were: size, then digest. Anything else
    /// is refused without a request ([`SkillRefusal::Unlisted`]): a file
    /// not listed, a path with `..`, `.` or an empty segment, a URI outside
    /// the skill. A `"dynamic"` skill lists no file: any plain path below
    /// its directory is read, unchecked.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime::client::Client, skill: mcp_runtime::protocol::Skill)
    /// # -> Result<(), mcp_runtime::client::Error> {
    /// let loaded = client.load_skill(&skill).await?;
    /// let forms = loaded.read(&client, "references/FORMS.md").await?;
    /// // Refused, and not asked for.
    /// assert!(loaded.read(&client, "../other-skill/SKILL.md").await.is_err());
    /// # let _ = forms; Ok(()) }
    /// ```
    pub async fn read(&self, client: &Client, path_or_uri: &str) -> Result<Vec<u8>, Error> {
        let uri = self.resolve(path_or_uri)?;
        match &self.skill.resources {
            SkillFiles::Listed(files) => {
                let Some(file) = files.iter().find(|file| file.uri == uri) else {
                    return Err(self.unlisted(path_or_uri).into());
                };
                let bytes = client.skill_file(&uri).await?;
                verify(file, &bytes)?;
                Ok(bytes)
            }
            SkillFiles::Dynamic(_) => client.skill_file(&uri).await,
        }
    }

    /// The URI of `path_or_uri` below the skill's directory.
    fn resolve(&self, path_or_uri: &str) -> Result<String, SkillRefusal> {
        let directory = self.directory();
        let path = match path_or_uri.strip_prefix(directory).and_then(|rest| rest.strip_prefix('/')) {
            Some(below) => below,
            None if path_or_uri.contains("://") => return Err(self.unlisted(path_or_uri)),
            None => path_or_uri,
        };
        if !rules::is_plain_path(path) {
            return Err(self.unlisted(path_or_uri));
        }
        Ok(format!("{directory}/{path}"))
    }

    fn unlisted(&self, file: &str) -> SkillRefusal {
        SkillRefusal::Unlisted { skill: self.skill.uri.clone(), file: file.to_owned() }
    }
}

/// A listed entry, or `None` (logged) for one that does not read as one.
fn entry_of(entry: Value) -> Option<Skill> {
    let uri = entry.get("uri").and_then(Value::as_str).unwrap_or("(no uri)").to_owned();
    match serde_json::from_value(entry) {
        Ok(skill) => Some(skill),
        Err(error) => {
            tracing::warn!(skill = %uri, "a `skills/list` entry that does not read is left out: {error}");
            None
        }
    }
}

/// The settings of the extension in `capabilities`, if it is declared
/// there (with an object: `{}` for none).
fn settings_of(capabilities: Option<&Value>) -> Option<Settings> {
    let settings = capabilities?.get("extensions")?.get(SKILLS_EXTENSION)?.as_object()?;
    Some(Settings { directory_read: settings.get("directoryRead") == Some(&Value::Bool(true)) })
}

/// The directory of a `SKILL.md`'s URI: the URI without `/SKILL.md`.
fn directory_of(uri: &str) -> Option<&str> {
    uri.strip_suffix(SKILL_FILE)?.strip_suffix('/').filter(|directory| !directory.is_empty())
}

/// The entry of the skill's own `SKILL.md` (`None` for a `"dynamic"`
/// skill), once the entry is found to keep the extension's rules.
pub(crate) fn checked_entry(skill: &Skill) -> Result<Option<&SkillFile>, SkillRefusal> {
    let refused = |reason: String| SkillRefusal::Entry { skill: skill.uri.clone(), reason };
    let Some(directory) = directory_of(&skill.uri) else {
        return Err(refused(format!("its URI does not end with `/{SKILL_FILE}`")));
    };
    let SkillFiles::Listed(files) = &skill.resources else { return Ok(None) };
    if files.len() > FILES_MAX {
        return Err(refused(format!("it lists {} files, more than the {FILES_MAX} a host accepts", files.len())));
    }
    let total = files.iter().fold(0u64, |total, file| total.saturating_add(file.size));
    if total > SIZE_MAX {
        return Err(refused(format!("its files have {total} bytes, more than the {SIZE_MAX} a host accepts")));
    }
    let mut seen = HashSet::with_capacity(files.len());
    for file in files {
        if !rules::is_digest(&file.digest) {
            return Err(refused(format!(
                "the digest of {} is not `sha256:` and 64 lowercase hex digits: {:?}",
                file.uri, file.digest
            )));
        }
        let below = file.uri.strip_prefix(directory).and_then(|rest| rest.strip_prefix('/'));
        if !below.is_some_and(rules::is_plain_path) {
            return Err(refused(format!("{} is not a file below the skill's directory", file.uri)));
        }
        if !seen.insert(file.uri.as_str()) {
            return Err(refused(format!("it lists {} twice", file.uri)));
        }
    }
    match files.iter().find(|file| file.uri == skill.uri) {
        Some(own) => Ok(Some(own)),
        None => Err(refused(format!("it does not list its own `{SKILL_FILE}`"))),
    }
}

/// Checks `bytes` against `file`'s entry: the size first, which refuses
/// extra bytes without hashing them, then the digest.
fn verify(file: &SkillFile, bytes: &[u8]) -> Result<(), SkillRefusal> {
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read != file.size {
        return Err(SkillRefusal::Size { uri: file.uri.clone(), listed: file.size, read });
    }
    let digest = rules::digest(bytes);
    if digest != file.digest {
        return Err(SkillRefusal::Digest { uri: file.uri.clone(), listed: file.digest.clone(), read: digest });
    }
    Ok(())
}

/// The fields of two front matters that differ: on one side only, or with
/// other values (JSON equality, all the way down), sorted.
fn differing(listed: &Map<String, Value>, read: &Map<String, Value>) -> Vec<String> {
    let fields: BTreeSet<&String> = listed.keys().chain(read.keys()).collect();
    fields.into_iter().filter(|field| listed.get(*field) != read.get(*field)).cloned().collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use mcp_runtime_rules::skill::{digest, is_digest};

    fn skill(resources: SkillFiles) -> Skill {
        let frontmatter = json!({"name": "pdf", "description": "d"}).as_object().cloned().unwrap_or_default();
        Skill::new("skill://acme/pdf/SKILL.md", frontmatter, resources)
    }

    fn file(path: &str, bytes: &[u8]) -> SkillFile {
        SkillFile::new(format!("skill://acme/pdf/{path}"), digest(bytes), bytes.len() as u64)
    }

    #[test]
    fn size_is_checked_before_the_digest_and_the_digest_is_lowercase_hex() {
        let listed = file("SKILL.md", b"abc");
        assert_eq!(verify(&listed, b"abc"), Ok(()));
        assert!(matches!(verify(&listed, b"abcd"), Err(SkillRefusal::Size { listed: 3, read: 4, .. })));
        assert!(matches!(verify(&listed, b"abd"), Err(SkillRefusal::Digest { .. })));
        assert_eq!(digest(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert!(is_digest(&digest(b"x")));
        for bad in ["sha256:", "sha1:00", &digest(b"x").to_uppercase(), &format!("{}0", digest(b"x"))] {
            assert!(!is_digest(bad), "{bad}");
        }
    }

    #[test]
    fn an_entry_is_refused_unless_it_lists_its_own_skill_md_once_below_its_directory() {
        let own = file("SKILL.md", b"---\n---\n");
        assert!(checked_entry(&skill(SkillFiles::Listed(vec![own.clone()]))).is_ok());
        let refused = |files: Vec<SkillFile>| checked_entry(&skill(SkillFiles::Listed(files))).err();
        assert!(refused(vec![file("a.md", b"a")]).is_some(), "no SKILL.md of its own");
        assert!(refused(vec![own.clone(), own.clone()]).is_some(), "listed twice");
        assert!(refused(vec![own.clone(), file("../b/x.md", b"")]).is_some(), "outside");
        assert!(refused(vec![own.clone(), SkillFile::new("skill://other/x.md", digest(b""), 0)]).is_some());
        assert!(refused(vec![SkillFile::new(own.uri.clone(), "sha256:00", 8)]).is_some(), "a short digest");
        let mut dynamic = skill(SkillFiles::Dynamic(crate::protocol::Dynamic::Dynamic));
        assert_eq!(checked_entry(&dynamic), Ok(None));
        dynamic.uri = "skill://acme/pdf/README.md".into();
        assert!(checked_entry(&dynamic).is_err(), "not a SKILL.md");
    }

    #[test]
    fn a_skill_up_to_the_limits_is_accepted_and_one_beyond_refused() {
        let own = file("SKILL.md", b"");
        let many = |n: usize| {
            let mut files = vec![own.clone()];
            files.extend((1..n).map(|i| file(&format!("f{i}"), b"")));
            skill(SkillFiles::Listed(files))
        };
        assert!(checked_entry(&many(FILES_MAX)).is_ok());
        assert!(checked_entry(&many(FILES_MAX + 1)).is_err());
        let sized = |size: u64| skill(SkillFiles::Listed(vec![SkillFile::new(own.uri.clone(), digest(b""), size)]));
        assert!(checked_entry(&sized(SIZE_MAX)).is_ok());
        assert!(checked_entry(&sized(SIZE_MAX + 1)).is_err());
    }

    #[test]
    fn front_matters_differ_by_field_both_ways_and_deeply() {
        let a = json!({"name": "x", "metadata": {"v": 1}, "license": "MIT"});
        let b = json!({"name": "x", "metadata": {"v": 2}, "allowed-tools": "Bash"});
        let (a, b) = (a.as_object().cloned().unwrap_or_default(), b.as_object().cloned().unwrap_or_default());
        assert_eq!(differing(&a, &b), ["allowed-tools", "license", "metadata"]);
        assert!(differing(&a, &a).is_empty());
    }

    /// Compiled, not run: a host spawns what it asks of a server.
    #[allow(dead_code, reason = "a compile-time check")]
    fn the_futures_are_send(client: &Client, skill: &Skill, loaded: &LoadedSkill) {
        fn send<T: Send>(_: T) {}
        send(client.list_skills(None));
        send(client.skills());
        send(client.get_skill(""));
        send(client.load_skill(skill));
        send(client.read_directory("", None));
        send(loaded.read(client, ""));
    }

    #[test]
    fn the_extension_is_declared_with_an_object_under_its_identifier() {
        let declared = |capabilities: Value| settings_of(Some(&capabilities)).map(|s| s.directory_read);
        assert_eq!(declared(json!({"extensions": {SKILLS_EXTENSION: {}}})), Some(false));
        assert_eq!(declared(json!({"extensions": {SKILLS_EXTENSION: {"directoryRead": true}}})), Some(true));
        assert_eq!(declared(json!({"extensions": {SKILLS_EXTENSION: true}})), None);
        assert_eq!(declared(json!({"resources": {}})), None);
        assert!(settings_of(None).is_none());
    }
}
