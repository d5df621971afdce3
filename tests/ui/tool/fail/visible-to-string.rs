use mcp_runtime::tool;

/// Lists the payroll, for the admins: named as a group, not as a rule.
#[tool(visible_to = "admins")]
fn payroll() -> String {
    "…".to_owned()
}

fn main() {}
