//! The runtime's derives alongside ordinary ones and serde/schemars
//! attributes; the type works as a tool argument and as a result.

use mcp_runtime::tool;

/// Where to look.
#[mcp_runtime::derives(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Place {
    /// The street name.
    street_name: String,
    #[serde(default)]
    #[schemars(range(min = 1))]
    house_number: Option<u32>,
}

/// Repeats a place.
#[tool]
fn echo(place: Place) -> Place {
    place.clone()
}

fn main() {
    let place = Place { street_name: "Main".into(), house_number: None };
    assert_eq!(format!("{place:?}"), "Place { street_name: \"Main\", house_number: None }");
    let json = mcp_runtime::serde_json::to_string(&place).unwrap();
    assert_eq!(json, r#"{"streetName":"Main","houseNumber":null}"#);
    let schema = mcp_runtime::schemars::schema_for!(Place);
    assert!(schema.as_value()["properties"]["streetName"].is_object());
    let _ = echo;
}
