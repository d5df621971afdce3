use mcp_runtime::entry::Viewer;
use mcp_runtime::{prompt, resource, tool};

/// Whether the caller's token says it is staff.
fn staff_only(viewer: &Viewer<'_>) -> bool {
    viewer.principal().and_then(|p| p.claim("groups")).and_then(|g| g.as_array())
        .is_some_and(|groups| groups.iter().any(|g| g == "staff"))
}

mod rules {
    use mcp_runtime::entry::Viewer;

    /// Whether the caller has a verified token.
    pub(crate) fn signed_in(viewer: &Viewer<'_>) -> bool {
        viewer.principal().is_some()
    }
}

/// Lists the payroll, for the staff alone.
#[tool(visible_to = staff_only)]
fn payroll() -> String {
    "…".to_owned()
}

/// Asks for a review of the caller's notes.
#[prompt(visible_to = rules::signed_in)]
fn review_mine() -> String {
    "Review my notes.".to_owned()
}

/// The staff handbook.
#[resource("docs://handbook", visible_to = self::staff_only, scopes = ["docs:read"])]
fn handbook() -> &'static str {
    "…"
}

fn main() {
    let _server = mcp_runtime::Server::builder("s", "1")
        .tools(mcp_runtime::tools![payroll])
        .prompts(mcp_runtime::prompts![review_mine])
        .resources(mcp_runtime::resources![handbook])
        .build();
}
