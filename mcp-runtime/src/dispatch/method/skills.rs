//! `skills/list`, `skills/get` and `resources/directory/read` (the skills
//! extension): entries and directories the catalog built, paged and
//! answered as they are.

use serde_json::value::RawValue;

use super::lists::ListParams;
use super::name::Method;
use super::parts::{Route, SkillsRequest, params_of};
use crate::dispatch::Prepared;
use crate::dispatch::decorate::{finish, finish_sized};
use crate::dispatch::pagination;
use crate::protocol::{ErrorObject, GetSkillParams, ReadDirectoryParams, ResultType, uri};
use crate::response::{Page, Response, Stage};
use crate::server::Snapshot;

/// The tag of `skills/list` cursors.
const SKILLS: &str = "skills";
/// The tag of `resources/directory/read` cursors.
const DIRECTORY: &str = "directory";

pub(super) fn route(
    snapshot: &Snapshot,
    method: Method,
    params: Option<&RawValue>,
) -> Result<Route, (ErrorObject, Stage)> {
    let request = match method {
        Method::SkillsList => {
            let p: ListParams = params_of(method, params)?;
            let after = pagination::decode(p.cursor.as_deref(), SKILLS).map_err(|e| (e, Stage::Params))?;
            let skills = snapshot.catalog().skills();
            SkillsRequest::List(pagination::start(after.as_ref(), skills.len(), |i| (skills.uri(i), "")))
        }
        Method::SkillsGet => {
            let p: GetSkillParams = params_of(method, params)?;
            uri::check("uri", &p.uri).map_err(|e| (e, Stage::Params))?;
            SkillsRequest::Get(p.uri)
        }
        _ => {
            let p: ReadDirectoryParams = params_of(method, params)?;
            uri::check("uri", &p.uri).map_err(|e| (e, Stage::Params))?;
            let after = pagination::decode(p.cursor.as_deref(), DIRECTORY).map_err(|e| (e, Stage::Params))?;
            SkillsRequest::Directory(p.uri, after)
        }
    };
    Ok(Route::Skills(request))
}

pub(super) fn run(p: &Prepared, request: SkillsRequest) -> Response {
    let settings = p.server.settings();
    let skills = p.snapshot.catalog().skills();
    let cache = Some(settings.list_cache);
    match request {
        SkillsRequest::List(start) => {
            let (range, next_cursor) =
                pagination::page(SKILLS, start, skills.len(), settings.page_size, |i| (skills.uri(i), ""));
            let items: Vec<&RawValue> = range.map(|i| skills.json(i)).collect();
            let size = items.iter().map(|item| item.get().len() + 1).sum();
            finish_sized(p, ResultType::Complete, &Page { key: SKILLS, items, next_cursor }, None, cache, size)
        }
        SkillsRequest::Get(uri) => match skills.get(&uri) {
            Some(skill) => finish(p, ResultType::Complete, &GetSkill { skill }, None, cache),
            None => refused(p, format!("Not a served skill: {uri}"), &uri),
        },
        SkillsRequest::Directory(uri, after) => {
            let Some(children) = skills.directory(&uri) else {
                return refused(p, format!("Not a directory of a served skill: {uri}"), &uri);
            };
            let start = pagination::start(after.as_ref(), children.len(), |i| (children[i].0, ""));
            let (range, next_cursor) =
                pagination::page(DIRECTORY, start, children.len(), settings.page_size, |i| (children[i].0, ""));
            let items: Vec<&RawValue> = children[range].iter().map(|(_, json)| *json).collect();
            let page = Page { key: "resources", items, next_cursor };
            finish(p, ResultType::Complete, &page, None, None)
        }
    }
}

/// `-32602` naming the URI.
fn refused(p: &Prepared, message: String, uri: &str) -> Response {
    let error = ErrorObject::invalid_params(message).with_data(serde_json::json!({ "uri": uri }));
    Response::error(Some(p.id.clone()), error, Stage::Params)
}

#[derive(serde::Serialize)]
struct GetSkill<'a> {
    skill: &'a RawValue,
}
