//! The MCP fixtures server as an AWS Lambda function (function URL or API
//! Gateway). Build and deploy with Cargo Lambda:
//!
//! ```text
//! cargo lambda build --release -p lambda-example
//! cargo lambda deploy --env-var MCP_REQUEST_STATE_KEY=... lambda-example
//! ```
//!
//! `MCP_REQUEST_STATE_KEY` is required: every instance must seal and open
//! `requestState` with the same secret. See the crate's documentation for
//! what this shape serves.

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
