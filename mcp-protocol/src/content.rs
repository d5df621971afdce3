//! Content blocks (text, image, audio, resource link, embedded resource),
//! resource contents and their annotations.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::icon::Icon;

/// Who a piece of content is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Hints on how a client should use a piece of content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Intended audience.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// Builder-style setters: every field is optional.
///
/// ```
/// use mcp_runtime_protocol::{Annotations, Role};
/// let for_the_user = Annotations::default().with_audience(vec![Role::User]).with_priority(0.8);
/// assert_eq!(serde_json::to_value(&for_the_user).unwrap(), serde_json::json!({"audience": ["user"], "priority": 0.8}));
/// ```
impl Annotations {
    /// Sets the intended audience.
    pub fn with_audience(mut self, audience: Vec<Role>) -> Self {
        self.audience = Some(audience);
        self
    }

    /// Sets the importance, from 0 (least) to 1 (most).
    pub fn with_priority(mut self, priority: f64) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Sets the ISO 8601 time of the last change.
    pub fn with_last_modified(mut self, last_modified: impl Into<String>) -> Self {
        self.last_modified = Some(last_modified.into());
        self
    }
}

/// One block of content in a tool result or a prompt message.
///
/// ```
/// use mcp_runtime_protocol::ContentBlock;
/// let block = ContentBlock::text("hello");
/// assert_eq!(serde_json::to_value(&block).unwrap(), serde_json::json!({"type":"text","text":"hello"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text(TextContent),
    /// A base64-encoded image.
    Image(ImageContent),
    /// Base64-encoded audio.
    Audio(AudioContent),
    /// A link to a resource the client may read.
    ResourceLink(ResourceLink),
    /// A resource embedded by value.
    #[serde(rename = "resource")]
    EmbeddedResource(EmbeddedResource),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent { text: text.into(), annotations: None, meta: None })
    }

    /// An image block from raw bytes (base64-encoded here).
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent {
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An audio block from raw bytes (base64-encoded here).
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent {
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// A link to a resource.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink(ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: Vec::new(),
            annotations: None,
            meta: None,
        })
    }

    /// An embedded resource.
    pub fn resource(contents: ResourceContents) -> Self {
        ContentBlock::EmbeddedResource(EmbeddedResource { resource: contents, annotations: None, meta: None })
    }

    /// Sets the block's usage hints.
    ///
    /// ```
    /// use mcp_runtime_protocol::{Annotations, ContentBlock};
    /// let block = ContentBlock::text("hello").with_annotations(Annotations::default().with_priority(1.0));
    /// assert_eq!(serde_json::to_value(&block).unwrap()["annotations"]["priority"], 1.0);
    /// ```
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        *self.parts().0 = Some(annotations);
        self
    }

    /// Sets the block's `_meta`.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        *self.parts().1 = Some(meta);
        self
    }

    /// The optional members every kind of block has.
    fn parts(&mut self) -> (&mut Option<Annotations>, &mut Option<Map<String, Value>>) {
        match self {
            ContentBlock::Text(c) => (&mut c.annotations, &mut c.meta),
            ContentBlock::Image(c) => (&mut c.annotations, &mut c.meta),
            ContentBlock::Audio(c) => (&mut c.annotations, &mut c.meta),
            ContentBlock::ResourceLink(c) => (&mut c.annotations, &mut c.meta),
            ContentBlock::EmbeddedResource(c) => (&mut c.annotations, &mut c.meta),
        }
    }
}

/// `{type: "text", text}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `{type: "image", data, mimeType}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded image data.
    pub data: String,
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `{type: "audio", data, mimeType}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Base64-encoded audio data.
    pub data: String,
    /// MIME type, e.g. `audio/wav`.
    pub mime_type: String,
    /// Usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `{type: "resource_link", uri, name, ...}`: a resource by reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes before any encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `{type: "resource", resource}`: a resource by value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The contents of a resource: text or a base64 blob.
///
/// ```
/// use mcp_runtime_protocol::ResourceContents;
/// let c = ResourceContents::text("notes://1", "hello").with_mime_type("text/plain");
/// assert_eq!(serde_json::to_value(&c).unwrap(),
///     serde_json::json!({"uri":"notes://1","mimeType":"text/plain","text":"hello"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    /// The URI these contents belong to.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text or blob.
    #[serde(flatten)]
    pub body: ResourceBody,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The body of [`ResourceContents`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub enum ResourceBody {
    /// UTF-8 text.
    Text(String),
    /// Base64-encoded bytes.
    Blob(String),
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents { uri: uri.into(), mime_type: None, body: ResourceBody::Text(text.into()), meta: None }
    }

    /// Binary contents (base64-encoded here).
    pub fn blob(uri: impl Into<String>, bytes: &[u8]) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(base64::engine::general_purpose::STANDARD.encode(bytes)),
            meta: None,
        }
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the contents' `_meta`.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }
}
