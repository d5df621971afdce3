//! Tools returning each kind of content, failing, reporting progress and
//! logging, as the conformance suite expects them.

use mcp_runtime::protocol::{ContentBlock, ResourceContents};
use mcp_runtime::{
    RequestContext,
    events::ServerEvent,
    extract::{Logger, Progress},
    tool,
};

/// A 1×1 transparent PNG.
pub(crate) const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00,
    0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file holding one silent 8-bit sample at 8 kHz.
const SILENT_WAV: &[u8] = &[
    b'R', b'I', b'F', b'F', 37, 0, 0, 0, b'W', b'A', b'V', b'E', b'f', b'm', b't', b' ', 16, 0, 0, 0, 1, 0, 1, 0, 0x40,
    0x1f, 0, 0, 0x40, 0x1f, 0, 0, 1, 0, 8, 0, b'd', b'a', b't', b'a', 1, 0, 0, 0, 0x80,
];

/// Returns a short text.
#[tool(annotations(read_only))]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1×1 PNG image.
#[tool(annotations(read_only))]
fn test_image_content() -> ContentBlock {
    ContentBlock::image(PIXEL_PNG, "image/png")
}

/// Returns a short silent WAV sound.
#[tool(annotations(read_only))]
fn test_audio_content() -> ContentBlock {
    ContentBlock::audio(SILENT_WAV, "audio/wav")
}

/// Returns a resource embedded by value.
#[tool(annotations(read_only))]
fn test_embedded_resource() -> ContentBlock {
    ContentBlock::resource(
        ResourceContents::text("test://embedded-resource", "This is an embedded resource content.")
            .with_mime_type("text/plain"),
    )
}

/// Returns text, an image and an embedded resource together.
#[tool(annotations(read_only))]
fn test_multiple_content_types() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(PIXEL_PNG, "image/png"),
        ContentBlock::resource(
            ResourceContents::text("test://mixed-content-resource", r#"{"test":"data","value":123}"#)
                .with_mime_type("application/json"),
        ),
    ]
}

/// Always fails, as a tool error the model can read.
#[tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Reports progress three times (0, 50 and 100 of 100), then finishes.
#[tool]
async fn test_tool_with_progress(progress: Progress) -> String {
    for step in [0.0, 50.0, 100.0] {
        progress.report_with_message(step, Some(100.0), format!("{step}% done"));
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    "Progress test completed".to_owned()
}

/// Logs three messages at increasing levels; they reach the client only when
/// its request set a log level.
#[tool]
async fn test_logging_tool(log: Logger) -> &'static str {
    let log = log.named("everything");
    log.debug("starting the logging test");
    log.info("logging test in progress");
    log.warning("logging test almost done");
    "Logging test completed"
}

/// Tells listen streams the tool list changed.
#[tool]
fn test_trigger_tool_change(cx: RequestContext) -> &'static str {
    cx.server().notify(ServerEvent::ToolsListChanged);
    "Tool list change announced"
}

/// Tells listen streams the prompt list changed.
#[tool]
fn test_trigger_prompt_change(cx: RequestContext) -> &'static str {
    cx.server().notify(ServerEvent::PromptsListChanged);
    "Prompt list change announced"
}

/// Echoes a message; `region` travels in the `Mcp-Param-Region` header too.
#[tool(annotations(read_only, idempotent))]
fn test_echo(
    message: String,
    #[arg(header = "Region", description = "Where the caller is")] region: Option<String>,
) -> String {
    match region {
        Some(region) => format!("{message} (from {region})"),
        None => message,
    }
}
