//! The MCP fixtures server as an AWS Lambda function (function URL or API
//! Gateway), with Cargo Lambda:
//!
//! ```text
//! # locally: the emulator serves a function URL at /lambda-url/lambda-example/
//! cargo lambda watch -p lambda-example --env-var MCP_REQUEST_STATE_KEY=$(openssl rand -hex 32)
//! # on AWS: an x86_64 binary for the provided.al2023 runtime, then the function
//! cargo lambda build --release -p lambda-example
//! cargo lambda deploy --enable-function-url --timeout 30 \
//!     --env-var MCP_REQUEST_STATE_KEY=$(openssl rand -hex 32) lambda-example
//! ```
//!
//! `MCP_REQUEST_STATE_KEY` is required: every instance must seal and open
//! `requestState` with the same secret (keep it across deployments, or
//! retries in flight are refused). What this shape serves, and what not:
//! see the crate's documentation.

use lambda_example::{Handler, Settings};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    // CloudWatch stamps each line with its time and keeps no colours.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_ansi(false)
        .without_time()
        .init();
    let handler = Handler::new(&Settings::from_env()?)?;
    lambda_http::run(handler).await
}
