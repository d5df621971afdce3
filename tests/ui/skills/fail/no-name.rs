fn main() {
    let _skills: mcp_runtime::skills::Skills = mcp_runtime::skills!("../fixtures/no-name");
}
