//! A test that awaits nothing takes the plain `#[test]`.

#[mcp_runtime::test]
fn counts() {
    assert_eq!(1 + 1, 2);
}

fn main() {}
