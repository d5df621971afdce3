//! A handler that panics fails its own request with `-32603`, and nothing
//! else: the server and the other requests carry on.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;

use crate::protocol::ErrorObject;

/// Runs a handler future, turning a panic into `-32603`.
pub(crate) async fn guarded<T>(
    fut: impl std::future::Future<Output = Result<T, ErrorObject>>,
) -> Result<T, ErrorObject> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            tracing::error!(panic = %detail, "a handler panicked");
            Err(ErrorObject::internal("The handler failed unexpectedly"))
        }
    }
}
