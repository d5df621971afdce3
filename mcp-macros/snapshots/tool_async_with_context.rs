/// Searches the notes.
#[tool(annotations(read_only), title = "Search")]
pub async fn search(
    /// What to look for.
    query: String,
    #[arg(default = 10, header = "Limit")] limit: u32,
    progress: Progress,
    cx: &RequestContext,
) -> Result<Vec<Hit>, SearchError> {
    todo!()
}
