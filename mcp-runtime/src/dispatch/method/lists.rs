//! `tools/list`, `prompts/list`, `resources/list` and
//! `resources/templates/list`: one page of a sorted list, from the cursor
//! the params carry.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::name::Method;
use super::parts::ListKind;
use super::parts::{Route, params_of};
use crate::dispatch::Prepared;
use crate::dispatch::decorate::finish_sized;
use crate::dispatch::pagination;
use crate::dispatch::visible::{self, Visible};
use crate::protocol::{CacheHints, CacheScope, ErrorObject, ResultType};
use crate::registry::catalog::Catalog;
use crate::registry::scopes::Access;
use crate::response::{Page, Response, Stage};
use crate::server::Snapshot;

impl ListKind {
    /// The list's member in the result, which also tags its cursors.
    pub(super) fn key(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
            ListKind::Templates => "resourceTemplates",
        }
    }

    fn len(self, c: &Catalog) -> usize {
        match self {
            ListKind::Tools => c.tools().len(),
            ListKind::Prompts => c.prompts().len(),
            ListKind::Resources => c.resources().len(),
            ListKind::Templates => c.templates().len(),
        }
    }

    /// The definition of item `i`, as the list shows it.
    fn json(self, c: &Catalog, i: usize) -> &RawValue {
        match self {
            ListKind::Tools => c.tools()[i].json(),
            ListKind::Prompts => c.prompts()[i].json(),
            ListKind::Resources => c.resources()[i].json(),
            ListKind::Templates => c.templates()[i].json(),
        }
    }

    /// Whether the caller of `access` is shown item `i`.
    fn shown(self, c: &Catalog, i: usize, access: &Access) -> bool {
        match self {
            ListKind::Tools => c.tools()[i].entry().shown_to(access),
            ListKind::Prompts => c.prompts()[i].entry().shown_to(access),
            ListKind::Resources => c.resources()[i].entry().shown_to(access),
            ListKind::Templates => c.templates()[i].entry().shown_to(access),
        }
    }

    /// The capability that offers the list.
    fn capability(self) -> Visible {
        match self {
            ListKind::Tools => Visible::Tools,
            ListKind::Prompts => Visible::Prompts,
            ListKind::Resources | ListKind::Templates => Visible::Resources,
        }
    }

    /// The sort key of item `i`, in the order the catalog keeps (names are
    /// unique for tools and prompts; resources sort by name, then URI).
    fn sort_key(self, c: &Catalog, i: usize) -> pagination::SortKey<'_> {
        match self {
            ListKind::Tools => (c.tools()[i].key(), ""),
            ListKind::Prompts => (c.prompts()[i].key(), ""),
            ListKind::Resources => (c.resources()[i].entry().name(), c.resources()[i].key()),
            ListKind::Templates => (c.templates()[i].entry().name(), c.templates()[i].key()),
        }
    }
}

/// The params of a paginated list: where it starts.
#[derive(Deserialize)]
pub(super) struct ListParams {
    #[serde(default)]
    pub(super) cursor: Option<String>,
}

/// Where the page starts: after the item the cursor names (a cursor that
/// is not one of this list's is `-32602`, from [`pagination::decode`]).
pub(super) fn route(
    snapshot: &Snapshot,
    method: Method,
    kind: ListKind,
    params: Option<&RawValue>,
) -> Result<Route, (ErrorObject, Stage)> {
    let catalog = snapshot.catalog();
    let p: ListParams = params_of(method, params)?;
    let after = pagination::decode(p.cursor.as_deref(), kind.key()).map_err(|e| (e, Stage::Params))?;
    let start = pagination::start(after.as_ref(), kind.len(catalog), |i| kind.sort_key(catalog, i));
    Ok(Route::List(kind, start))
}

pub(super) fn run(p: &Prepared, kind: ListKind, start: usize) -> Response {
    if p.access.filters(p.snapshot.catalog()) {
        // Apart: the common list, of a server that checks nothing and
        // hides nothing, keeps its path.
        return filtered(p, kind, start);
    }
    let settings = p.server.settings();
    let c = p.snapshot.catalog();
    let key = kind.key();
    let (range, next_cursor) = pagination::page(key, start, kind.len(c), settings.page_size, |i| kind.sort_key(c, i));
    // Only this page's definitions, serialized when the server was built.
    let rewritten = rewritten(p, kind);
    let items: Vec<&RawValue> = match &rewritten {
        Some(definitions) => definitions[range].iter().map(|item| &**item).collect(),
        None => match kind {
            ListKind::Tools => c.tools()[range].iter().map(|t| t.json()).collect(),
            ListKind::Prompts => c.prompts()[range].iter().map(|t| t.json()).collect(),
            ListKind::Resources => c.resources()[range].iter().map(|t| t.json()).collect(),
            ListKind::Templates => c.templates()[range].iter().map(|t| t.json()).collect(),
        },
    };
    answer_page(p, key, items, next_cursor, settings.list_cache)
}

/// The definitions of the list as the request's client reads them, where
/// they differ from the catalog's: in an older shape (a 2025-era session's
/// version), some without their newer members. Rewritten once per catalog
/// and shape.
pub(super) fn rewritten(p: &Prepared, kind: ListKind) -> Option<std::sync::Arc<[Box<RawValue>]>> {
    #[cfg(feature = "session")]
    if let Some(shape) = p.shape {
        let c = p.snapshot.catalog();
        return p.snapshot.older_definitions(shape.version(), kind.key(), || {
            let all: Vec<&RawValue> = (0..kind.len(c)).map(|i| kind.json(c, i)).collect();
            shape.list_items(kind.key(), &all)
        });
    }
    let _ = (p, kind);
    None
}

/// One page of the items the caller may see, on a server that checks
/// scopes or has entries with visibility rules. The page starts after the cursor's item, visible or not, and
/// the next cursor names the last item shown: a page never skips or
/// repeats one, however the hidden ones fall. `cacheScope` is `private`
/// on every page, since the list depends on the caller.
fn filtered(p: &Prepared, kind: ListKind, start: usize) -> Response {
    let settings = p.server.settings();
    let c = p.snapshot.catalog();
    if !visible::offers(c, &p.access, kind.capability()) {
        // A capability the caller is not shown does not exist for it.
        let method = p.method.name();
        return Response::error(Some(p.id.clone()), ErrorObject::method_not_found(method), Stage::Routing);
    }
    let key = kind.key();
    let mut shown = (start..kind.len(c)).filter(|&i| kind.shown(c, i, &p.access));
    let page: Vec<usize> = shown.by_ref().take(settings.page_size).collect();
    let next_cursor = match (page.last(), shown.next()) {
        (Some(&last), Some(_)) => Some(pagination::encode(key, kind.sort_key(c, last))),
        _ => None,
    };
    let rewritten = rewritten(p, kind);
    let items: Vec<&RawValue> = match &rewritten {
        Some(definitions) => page.iter().map(|&i| &*definitions[i]).collect(),
        None => page.iter().map(|&i| kind.json(c, i)).collect(),
    };
    answer_page(p, key, items, next_cursor, settings.list_cache.with_scope(CacheScope::Private))
}

/// The page of `items` as the response.
pub(super) fn answer_page(
    p: &Prepared,
    key: &'static str,
    items: Vec<&RawValue>,
    next_cursor: Option<String>,
    cache: CacheHints,
) -> Response {
    let size = items.iter().map(|item| item.get().len() + 1).sum();
    finish_sized(p, ResultType::Complete, &Page { key, items, next_cursor }, None, Some(cache), size)
}
