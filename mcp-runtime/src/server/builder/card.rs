//! The builder's server card ([`crate::card`]).

use super::ServerBuilder;
use crate::card::ServerCard;

#[cfg_attr(docsrs, doc(cfg(feature = "server-card")))]
impl ServerBuilder {
    /// Publishes a server card over HTTP (the [`card`](crate::card) module
    /// tells where and what it holds): the server's version, title,
    /// description, website and icons, `card`'s name and repository, and
    /// the public URL. A setting the draft's rules refuse (a name not in
    /// reverse-DNS form, no description) is a
    /// [`BuildError::Setting`](crate::BuildError::Setting) naming it.
    ///
    /// ```
    /// use mcp_runtime::{BuildError, Server, card::ServerCard};
    ///
    /// let error = Server::builder("notes", "1.0.0")
    ///     .description("Search and edit team notes.")
    ///     .server_card(ServerCard::new())
    ///     .build()
    ///     .unwrap_err();
    /// assert!(matches!(error, BuildError::Setting { .. }));
    /// assert!(error.to_string().starts_with("ServerCard::name"));
    /// ```
    pub fn server_card(mut self, card: ServerCard) -> Self {
        self.server_card = Some(card);
        self
    }
}
