/// Data for one id.
#[resource("test://template/{id}/data", mime_type = "application/json", crate = ::renamed)]
async fn template_data(id: u64, State(db): State<Db>) -> Result<String, NotFound> {
    db.get(id).ok_or(NotFound)
}
