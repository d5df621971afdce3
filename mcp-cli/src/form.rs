//! A form elicitation answered from the command line: the requested
//! schema read into fields, each one filled from `--answer`, from its
//! default under `--yes`, or by asking at the terminal.

use std::io::{BufRead, Write};

use mcp_runtime::protocol::ElicitResult;
use serde_json::{Map, Value};

/// The most times one field is asked again after an answer that does not
/// read: a terminal fed the same wrong line forever is given up.
const MAX_ATTEMPTS: usize = 10;

/// What the command line says about the server's questions.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Answers {
    /// `--answer FIELD=VALUE`, in the order given (a later one wins).
    pub(crate) given: Vec<(String, String)>,
    /// `--yes`: accept, each field at its default (a yes/no one at yes).
    pub(crate) yes: bool,
}

impl Answers {
    /// Whether these answer a form without a terminal at all.
    pub(crate) fn any(&self) -> bool {
        self.yes || !self.given.is_empty()
    }

    fn given(&self, field: &str) -> Option<&str> {
        self.given.iter().rev().find(|(name, _)| name == field).map(|(_, value)| value.as_str())
    }
}

/// One field of a form.
#[derive(Debug, PartialEq)]
struct Field {
    name: String,
    /// What the user is shown: the title, else the name.
    label: String,
    description: Option<String>,
    kind: Kind,
    required: bool,
    default: Option<Value>,
}

/// What a field takes.
#[derive(Debug, PartialEq)]
enum Kind {
    Text {
        min: Option<u64>,
        max: Option<u64>,
    },
    Number {
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    /// One of these values, each with its title if it has one.
    Choice(Vec<(String, Option<String>)>),
}

/// The fields of a requested schema (a flat object of strings, numbers,
/// integers, booleans and enums, which is all a form may ask for).
fn fields_of(schema: &Value) -> Result<Vec<Field>, String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Err("its form has no `properties` object".into());
    };
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    properties
        .iter()
        .map(|(name, property)| {
            let text = |key: &str| property.get(key).and_then(Value::as_str).map(str::to_owned);
            Ok(Field {
                name: name.clone(),
                label: text("title").unwrap_or_else(|| name.clone()),
                description: text("description"),
                kind: kind_of(name, property)?,
                required: required.contains(&name.as_str()),
                default: property.get("default").cloned(),
            })
        })
        .collect()
}

fn kind_of(name: &str, property: &Value) -> Result<Kind, String> {
    let strings = |key: &str| -> Option<Vec<String>> {
        property.get(key)?.as_array()?.iter().map(|v| v.as_str().map(str::to_owned)).collect()
    };
    if let Some(values) = strings("enum") {
        let titles = strings("enumNames").filter(|titles| titles.len() == values.len());
        let titles = titles.map_or_else(|| vec![None; values.len()], |t| t.into_iter().map(Some).collect());
        return Ok(Kind::Choice(values.into_iter().zip(titles).collect()));
    }
    if let Some(options) = property.get("oneOf").and_then(Value::as_array) {
        let choices: Option<Vec<_>> = options
            .iter()
            .map(|o| {
                Some((o.get("const")?.as_str()?.to_owned(), o.get("title").and_then(Value::as_str).map(str::to_owned)))
            })
            .collect();
        return choices.map(Kind::Choice).ok_or_else(|| format!("its field `{name}` has choices that are not strings"));
    }
    let number = |key: &str| property.get(key).and_then(Value::as_f64);
    match property.get("type").and_then(Value::as_str) {
        Some("string") => Ok(Kind::Text {
            min: property.get("minLength").and_then(Value::as_u64),
            max: property.get("maxLength").and_then(Value::as_u64),
        }),
        Some(kind @ ("number" | "integer")) => {
            Ok(Kind::Number { integer: kind == "integer", min: number("minimum"), max: number("maximum") })
        }
        Some("boolean") => Ok(Kind::Boolean),
        other => Err(format!(
            "its field `{name}` is of type {}, which mcp cannot fill in (it fills in text, numbers, integers, \
             yes/no and choices)",
            other.map_or_else(|| "none".to_owned(), |t| format!("`{t}`"))
        )),
    }
}

/// `text` read as what `field` takes.
fn value_of(field: &Field, text: &str) -> Result<Value, String> {
    match &field.kind {
        Kind::Text { min, max } => {
            let length = text.chars().count() as u64;
            if min.is_some_and(|min| length < min) || max.is_some_and(|max| length > max) {
                let (min, max) = (min.unwrap_or(0), max.map_or_else(|| "any".to_owned(), |m| m.to_string()));
                return Err(format!("takes {min} to {max} characters, not {length}"));
            }
            Ok(Value::from(text))
        }
        Kind::Number { integer, min, max } => {
            let number = if *integer {
                text.trim().parse::<i64>().map(Value::from).map_err(|_| format!("takes an integer, not `{text}`"))?
            } else {
                let n = text.trim().parse::<f64>().ok().filter(|n| n.is_finite());
                Value::from(n.ok_or_else(|| format!("takes a number, not `{text}`"))?)
            };
            let n = number.as_f64().unwrap_or_default();
            if min.is_some_and(|min| n < min) || max.is_some_and(|max| n > max) {
                let shown = |bound: Option<f64>| bound.map_or_else(|| "any".to_owned(), |b| b.to_string());
                return Err(format!("takes a number from {} to {}, not {text}", shown(*min), shown(*max)));
            }
            Ok(number)
        }
        Kind::Boolean => match text.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" => Ok(Value::Bool(true)),
            "false" | "no" | "n" | "0" => Ok(Value::Bool(false)),
            _ => Err(format!("takes yes or no (true or false), not `{text}`")),
        },
        Kind::Choice(choices) => {
            let text = text.trim();
            let by_number = text.parse::<usize>().ok().and_then(|n| choices.get(n.checked_sub(1)?));
            choices
                .iter()
                .find(|(value, title)| value == text || title.as_deref().is_some_and(|t| t.eq_ignore_ascii_case(text)))
                .or(by_number)
                .map(|(value, _)| Value::from(value.as_str()))
                .ok_or_else(|| {
                    let values: Vec<&str> = choices.iter().map(|(value, _)| value.as_str()).collect();
                    format!("takes one of {}, not `{text}`", values.join(", "))
                })
        }
    }
}

/// The value `--yes` gives a field: its default, or yes for a yes/no one
/// without a default (`--yes` confirms).
fn yes_value(field: &Field) -> Option<Value> {
    field.default.clone().or_else(|| (field.kind == Kind::Boolean).then_some(Value::Bool(true)))
}

/// A terminal to ask at: lines are read from `input`, questions written to
/// `output` (stderr, so that stdout holds only the result).
pub(crate) struct Terminal<R, W> {
    pub(crate) input: R,
    pub(crate) output: W,
}

impl<R: BufRead, W: Write> Terminal<R, W> {
    /// One line typed in answer to `prompt`, without its end; `None` at
    /// the end of the input.
    fn ask(&mut self, prompt: &str) -> std::io::Result<Option<String>> {
        write!(self.output, "{prompt}")?;
        self.output.flush()?;
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            writeln!(self.output)?;
            return Ok(None);
        }
        Ok(Some(line.trim_end_matches(['\n', '\r']).to_owned()))
    }

    /// The value of `field` as typed, `Ok(None)` for an optional one left
    /// empty, `Err(None)` at the end of the input.
    fn fill(&mut self, field: &Field) -> Result<Option<Value>, Option<String>> {
        let io = |e: std::io::Error| Some(format!("the terminal failed: {e}"));
        let mut about = String::new();
        if let Some(description) = &field.description {
            about = format!(" ({})", printable(description));
        }
        let hint = match &field.kind {
            Kind::Text { .. } => "text",
            Kind::Number { integer: true, .. } => "integer",
            Kind::Number { .. } => "number",
            Kind::Boolean => "yes/no",
            Kind::Choice(choices) => {
                for (n, (value, title)) in choices.iter().enumerate() {
                    let title = title.as_deref().map(|t| format!(" ({})", printable(t))).unwrap_or_default();
                    writeln!(self.output, "    {}) {}{title}", n + 1, printable(value)).map_err(io)?;
                }
                "a number or a value"
            }
        };
        let default = match &field.default {
            Some(Value::String(text)) => format!(", default {}", printable(text)),
            Some(Value::Bool(yes)) => format!(", default {}", if *yes { "yes" } else { "no" }),
            Some(other) => format!(", default {other}"),
            None if field.required => ", required".to_owned(),
            None => ", may be left empty".to_owned(),
        };
        let prompt = format!("  {}{about} [{hint}{default}]: ", printable(&field.label));
        for _ in 0..MAX_ATTEMPTS {
            let Some(line) = self.ask(&prompt).map_err(io)? else { return Err(None) };
            if line.is_empty() {
                match (&field.default, field.required) {
                    (Some(default), _) => return Ok(Some(default.clone())),
                    (None, false) => return Ok(None),
                    (None, true) => {
                        writeln!(self.output, "  `{}` needs an answer", field.name).map_err(io)?;
                        continue;
                    }
                }
            }
            match value_of(field, &line) {
                Ok(value) => return Ok(Some(value)),
                Err(why) => writeln!(self.output, "  `{}` {why}", field.name).map_err(io)?,
            }
        }
        Err(Some(format!("no answer for `{}` read after {MAX_ATTEMPTS} tries", field.name)))
    }

    /// Accept, decline or cancel, as typed (the end of the input cancels).
    fn confirm(&mut self) -> Result<ElicitResult, String> {
        for _ in 0..MAX_ATTEMPTS {
            let line = self.ask("Send this answer? [Y]es, [d]ecline, [c]ancel: ").map_err(|e| e.to_string())?;
            match line.as_deref().map(|l| l.trim().to_ascii_lowercase()).as_deref() {
                None | Some("c" | "cancel") => return Ok(ElicitResult::cancel()),
                Some("" | "y" | "yes") => return Ok(ElicitResult::accept(Value::Null)),
                Some("d" | "decline" | "n" | "no") => return Ok(ElicitResult::decline()),
                Some(_) => {}
            }
        }
        Ok(ElicitResult::cancel())
    }
}

/// The answer to the form `schema` asking `message`: each field from
/// `answers`, else at the `terminal` if there is one. `Err` says why it
/// cannot be answered, for the user (the server is then told `cancel`).
pub(crate) fn answer<R: BufRead, W: Write>(
    message: &str,
    schema: &Value,
    answers: &Answers,
    mut terminal: Option<&mut Terminal<R, W>>,
) -> Result<ElicitResult, String> {
    let asked = format!("the server asks \"{}\"", printable(message));
    let fields = fields_of(schema).map_err(|why| format!("{asked}, but {why}"))?;
    if let Some(terminal) = terminal.as_deref_mut() {
        writeln!(terminal.output, "The server asks: {}", printable(message)).map_err(|e| e.to_string())?;
    }
    let mut content = Map::new();
    for field in &fields {
        let value = if let Some(text) = answers.given(&field.name) {
            Some(
                value_of(field, text)
                    .map_err(|why| format!("--answer {}={text}: `{}` {why}", field.name, field.name))?,
            )
        } else if let Some(value) = yes_value(field).filter(|_| answers.yes) {
            Some(value)
        } else if let Some(terminal) = terminal.as_deref_mut() {
            match terminal.fill(field) {
                Ok(value) => value,
                Err(None) => return Ok(ElicitResult::cancel()),
                Err(Some(why)) => return Err(format!("{asked}: {why}")),
            }
        } else if field.default.is_some() || !field.required {
            field.default.clone()
        } else {
            let about = field.description.as_deref().map(|d| format!(" ({})", printable(d))).unwrap_or_default();
            return Err(format!(
                "{asked} for `{}`{about}, which has no default: give --answer {}=VALUE, or run mcp in a terminal",
                field.name, field.name
            ));
        };
        if let Some(value) = value {
            content.insert(field.name.clone(), value);
        }
    }
    match terminal {
        Some(terminal) if !answers.yes => {
            let decided = terminal.confirm()?;
            Ok(if decided == ElicitResult::accept(Value::Null) { ElicitResult::accept(content) } else { decided })
        }
        _ => Ok(ElicitResult::accept(content)),
    }
}

/// `text` as it may be shown on a terminal: a server's words, whose
/// control characters (escape sequences) are shown escaped, not obeyed.
pub(crate) fn printable(text: &str) -> String {
    text.chars().flat_map(|c| if c.is_control() { c.escape_default().collect() } else { vec![c] }).collect()
}

#[cfg(test)]
mod tests {
    use mcp_runtime::protocol::ElicitAction;
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "required": ["name", "count", "sure"], "properties": {
            "name": {"type": "string", "title": "Your name", "minLength": 2},
            "count": {"type": "integer", "minimum": 1, "maximum": 5},
            "ratio": {"type": "number", "default": 0.5},
            "sure": {"type": "boolean"},
            "colour": {"type": "string", "enum": ["red", "green"], "enumNames": ["Red", "Green"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
                     "default": "s"},
        }})
    }

    fn given(pairs: &[(&str, &str)], yes: bool) -> Answers {
        Answers { given: pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(), yes }
    }

    fn no_terminal() -> Option<&'static mut Terminal<&'static [u8], Vec<u8>>> {
        None
    }

    fn typed(lines: &str, answers: &Answers) -> (Result<ElicitResult, String>, String) {
        let mut terminal = Terminal { input: lines.as_bytes(), output: Vec::new() };
        let answer = answer("Tell me", &schema(), answers, Some(&mut terminal));
        (answer, String::from_utf8_lossy(&terminal.output).into_owned())
    }

    #[test]
    fn answers_given_are_read_as_each_field_takes_and_the_rest_from_defaults() {
        let answers = given(&[("name", "Ada"), ("count", "3"), ("sure", "yes"), ("colour", "Green")], false);
        let answer = super::answer("Tell me", &schema(), &answers, no_terminal()).expect("answered");
        assert_eq!(answer.action, ElicitAction::Accept);
        let expected = json!({"name": "Ada", "count": 3, "ratio": 0.5, "sure": true, "colour": "green", "size": "s"});
        assert_eq!(Value::Object(answer.content.expect("content")), expected);
    }

    #[test]
    fn each_answer_that_does_not_fit_its_field_is_named() {
        for (pairs, says) in [
            (vec![("count", "1"), ("name", "A")], "--answer name=A: `name` takes 2 to any characters"),
            (vec![("name", "Ada"), ("count", "9")], "`count` takes a number from 1 to 5"),
            (vec![("name", "Ada"), ("count", "x")], "takes an integer"),
            (vec![("name", "Ada"), ("count", "1"), ("sure", "maybe")], "takes yes or no"),
            (vec![("name", "Ada"), ("count", "1"), ("sure", "y"), ("colour", "blue")], "one of red, green"),
            (vec![("name", "Ada"), ("count", "1")], "for `sure`, which has no default: give --answer sure=VALUE"),
        ] {
            let error = super::answer("Tell me", &schema(), &given(&pairs, false), no_terminal()).expect_err(says);
            assert!(error.contains(says), "{says}: {error}");
        }
        let array = json!({"properties": {"tags": {"type": "array"}}});
        let error = super::answer("Tags?", &array, &given(&[], true), no_terminal()).expect_err("not a form");
        assert!(error.contains("`tags` is of type `array`, which mcp cannot fill in"), "{error}");
    }

    #[test]
    fn yes_takes_each_default_and_confirms_but_asks_for_what_has_none() {
        let confirm = json!({"properties": {"delete": {"type": "boolean"}}, "required": ["delete"]});
        let answer = super::answer("Delete?", &confirm, &given(&[], true), no_terminal()).expect("answered");
        assert_eq!(answer, ElicitResult::accept(json!({"delete": true})));
        let error = super::answer("Tell me", &schema(), &given(&[], true), no_terminal()).expect_err("no default");
        assert!(error.contains("for `count`"), "{error}");
    }

    #[test]
    fn at_a_terminal_each_field_is_asked_until_it_reads_then_sent_declined_or_cancelled() {
        // The fields come in the order of their names: colour, count, name, ratio, size, sure.
        let (answer, shown) = typed("2\n7\n2\nA\nAda\n\n\ny\n\n", &given(&[], false));
        let expected = json!({"name": "Ada", "count": 2, "ratio": 0.5, "sure": true, "colour": "green", "size": "s"});
        assert_eq!(answer.expect("answered"), ElicitResult::accept(expected), "{shown}");
        assert!(shown.starts_with("The server asks: Tell me\n"), "{shown}");
        assert!(shown.contains("Your name [text, required]: "), "{shown}");
        assert!(shown.contains("`name` takes 2 to any characters"), "{shown}");
        assert!(shown.contains("`count` takes a number from 1 to 5, not 7"), "{shown}");
        assert!(shown.contains("    1) red (Red)\n    2) green (Green)"), "{shown}");
        let (declined, _) = typed("\n2\nAda\n\n\nn\nd\n", &given(&[], false));
        assert_eq!(declined.expect("answered").action, ElicitAction::Decline);
        let (ended, _) = typed("1\n", &given(&[], false));
        assert_eq!(ended.expect("answered").action, ElicitAction::Cancel, "the input ended");
        // Given answers are not asked again, and --yes does not ask to send.
        let (answer, shown) = typed("\n4\n", &given(&[("name", "Bo"), ("sure", "no")], true));
        let expected = json!({"name": "Bo", "count": 4, "ratio": 0.5, "sure": false, "size": "s"});
        assert_eq!(answer.expect("answered"), ElicitResult::accept(expected), "{shown}");
        assert!(!shown.contains("Send this answer"), "{shown}");
    }

    #[test]
    fn a_servers_words_cannot_steer_the_terminal() {
        assert_eq!(printable("ok\u{1b}[2J\n"), "ok\\u{1b}[2J\\n");
    }
}
