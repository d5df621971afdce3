//! `subscriptions/listen`: params, the acknowledgement frame and change notifications.

use serde::{Deserialize, Serialize};

/// Which notifications a listen stream asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these tasks (the tasks extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// Params of `subscriptions/listen` (without `_meta`).
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct ListenParams {
    /// What to deliver.
    pub notifications: SubscriptionFilter,
}

/// Method of the first frame of a listen stream.
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// Tools list changed.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// Prompts list changed.
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// Resources list changed.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// A subscribed resource changed.
pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
