use mcp_runtime::tool;

/// A rule that does not take the viewer.
fn wrong_sig(x: u32) -> bool {
    x > 0
}

/// Lists the payroll.
#[tool(visible_to = wrong_sig)]
fn payroll() -> String {
    "…".to_owned()
}

fn main() {}
