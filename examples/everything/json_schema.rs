//! A tool whose input schema uses the whole JSON Schema 2020-12 vocabulary
//! (`$schema`, `$defs` with an `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`,
//! `additionalProperties`), for clients that support the full dialect.
//!
//! The macros deliberately emit the inlined, conservative schemas most
//! clients accept, so this one tool is registered through the builder with
//! [`full_input_schema_for`]; the schema still comes from the Rust types.
//! The cross-field rules (one way to reach the contact must be given, and
//! the chosen one) cannot be said with types, so they are `extend`ed on.

use mcp_runtime::schema::full_input_schema_for;
use mcp_runtime::{Args, entry::ToolEntry};
use schemars::JsonSchema;
use serde::Deserialize;

/// A postal address.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "address", extend("$anchor" = "addressDef"))]
pub(crate) struct Address {
    street: Option<String>,
    city: Option<String>,
}

/// How to reach the contact.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ContactMethod {
    Phone,
    Email,
}

/// A contact, reachable by phone or by email.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(extend(
    "allOf" = [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if" = {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then" = {"required": ["phone"]},
    "else" = {"required": ["email"]},
))]
pub(crate) struct Contact {
    name: Option<String>,
    address: Option<Address>,
    contact_method: Option<ContactMethod>,
    phone: Option<String>,
    email: Option<String>,
}

/// The `json_schema_2020_12_tool` fixture.
pub(crate) fn tool() -> ToolEntry {
    ToolEntry::new("json_schema_2020_12_tool", |Args(contact): Args<Contact>| async move {
        let how = match (contact.contact_method, contact.phone, contact.email) {
            (Some(ContactMethod::Phone), Some(phone), _) | (None, Some(phone), None) => format!("by phone at {phone}"),
            (_, _, Some(email)) => format!("by email at {email}"),
            _ => "in no way given".to_owned(),
        };
        let city = contact.address.and_then(|a| a.city.or(a.street)).unwrap_or_else(|| "an unknown place".into());
        format!("{} lives in {city} and can be reached {how}.", contact.name.unwrap_or_else(|| "Someone".into()))
    })
    .description("Tool with JSON Schema 2020-12 features")
    .input_schema(full_input_schema_for::<Contact>())
}
