//! `server/discover`: what the server is and serves, built with the server
//! and answered as is.

use crate::dispatch::Prepared;
use crate::dispatch::decorate::finish;
use crate::dispatch::visible;
use crate::protocol::{CacheScope, ResultType};
use crate::response::Response;

pub(super) fn run(p: &Prepared) -> Response {
    let hints = p.server.settings().discover_cache;
    if p.access.filters(p.snapshot.catalog()) {
        // What the caller is shown depends on its scopes and rules: only the
        // capabilities of what it can see, and a result no one else may reuse.
        let mut discover = p.snapshot.discover().clone();
        discover.capabilities = visible::capabilities(p.snapshot.catalog(), &p.access, &discover.capabilities);
        let hints = hints.with_scope(CacheScope::Private);
        return finish(p, ResultType::Complete, &discover, None, Some(hints));
    }
    finish(p, ResultType::Complete, p.snapshot.discover(), None, Some(hints))
}
