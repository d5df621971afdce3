//! Icons a client may show beside a server, a tool, a prompt or a resource.

use serde::{Deserialize, Serialize};

/// An icon: an `https:` or `data:` URI with optional MIME type, sizes and theme.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// `https:` or `data:` URI of the image.
    pub src: String,
    /// MIME type, e.g. `image/png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// The theme the icon is drawn for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

impl Icon {
    /// An icon with just a source URI.
    ///
    /// ```
    /// use mcp_runtime_protocol::{Icon, IconTheme};
    /// let icon = Icon::new("https://example.com/dark.png").with_mime_type("image/png").with_sizes(["48x48"]).with_theme(IconTheme::Dark);
    /// assert_eq!(
    ///     serde_json::to_value(&icon).unwrap(),
    ///     serde_json::json!({"src": "https://example.com/dark.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "dark"}),
    /// );
    /// ```
    pub fn new(src: impl Into<String>) -> Self {
        Icon { src: src.into(), mime_type: None, sizes: Vec::new(), theme: None }
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the sizes the image fits, such as `"48x48"` or `"any"`.
    pub fn with_sizes(mut self, sizes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.sizes = sizes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the theme the icon is drawn for.
    pub fn with_theme(mut self, theme: IconTheme) -> Self {
        self.theme = Some(theme);
        self
    }
}

/// The background an icon is designed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}
