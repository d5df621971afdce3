use mcp_runtime::tool;

struct Connection;

/// Queries the database.
#[tool]
fn query(sql: String, connection: Connection) -> String {
    let _ = connection;
    sql
}

fn main() {}
