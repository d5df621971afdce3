fn main() {
    let _skills: mcp_runtime::skills::Skills = mcp_runtime::skills!("../fixtures/not-a-directory/pdf/SKILL.md");
}
