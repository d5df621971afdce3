//! [`Notices`]: what hears the notifications a server sends for one
//! request (its progress), handed to the transport that reads them.

use std::sync::Arc;

use serde_json::Value;

/// What hears the notifications sent for one request.
pub(crate) type Notices = Arc<dyn Fn(&Value) + Send + Sync>;
