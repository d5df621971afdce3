//! `server/discover`: what the server is and serves, built with the server
//! and answered as is.

use crate::dispatch::Prepared;
use crate::dispatch::decorate::finish;
use crate::dispatch::response::Response;
use crate::protocol::ResultType;

pub(super) fn run(p: &Prepared) -> Response {
    finish(p, ResultType::Complete, p.snapshot.discover(), None, Some(p.server.settings().discover_cache))
}
