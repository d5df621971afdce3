//! The application's own authentication: a bearer-token middleware that
//! puts the caller's [`User`] in the request's extensions, where both the
//! application's handlers and the MCP tools find it.
//!
//! A demonstration, not real authentication: tokens are fixed strings
//! compared in memory, with no expiry, no hashing and no constant-time
//! comparison. A real application would verify a signed token or ask its
//! identity provider, and put what it learned in the extensions the same way.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Who is calling, as the auth layer identified them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct User {
    /// The caller's name.
    pub(crate) name: String,
}

/// The bearer tokens the application accepts, each naming its user.
#[derive(Debug, Clone)]
pub(crate) struct Tokens(Arc<HashMap<String, User>>);

impl Tokens {
    /// Two demonstration users: `ada` (token `ada-token`) and `grace`
    /// (token `grace-token`).
    pub(crate) fn demo() -> Self {
        let users = [("ada-token", "ada"), ("grace-token", "grace")];
        Tokens(Arc::new(users.into_iter().map(|(t, n)| (t.to_owned(), User { name: n.to_owned() })).collect()))
    }

    fn user(&self, token: &str) -> Option<&User> {
        self.0.get(token)
    }
}

/// Lets through requests with `Authorization: Bearer <known token>`, with
/// their [`User`] in the extensions; answers 401 to every other.
pub(crate) async fn require_bearer(State(tokens): State<Tokens>, mut request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let Some(user) = token.and_then(|token| tokens.user(token.trim())).cloned() else {
        let mut refusal = (StatusCode::UNAUTHORIZED, "A valid bearer token is required\n").into_response();
        refusal.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return refusal;
    };
    request.extensions_mut().insert(user);
    next.run(request).await
}
