/// Lists the payroll, for the staff alone.
#[tool(visible_to = rules::staff_only)]
fn payroll() -> String {
    "…".to_owned()
}
