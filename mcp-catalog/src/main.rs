//! `mcp-catalog`: compares two catalog snapshots of an MCP server, and
//! checks one against model providers' tool-calling schema rules.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use mcp_catalog::profile::{Profile, check_snapshot, render_report};
use mcp_catalog::{diff, snapshot};

const USAGE: &str = "\
usage:
  mcp-catalog diff OLD.json NEW.json
      Classifies every change from OLD to NEW as breaking or compatible and
      prints a Markdown report. Exit status 1 when a change is breaking.
  mcp-catalog check [--profile openai|gemini|anthropic|all]... SNAPSHOT.json
      Reports, tool by tool, whether each provider accepts its schemas, with
      the rule and citation of each rejection. Exit status 1 when a tool is
      rejected. Without --profile, every profile.

Snapshots come from a server built with mcp-runtime, run with --dump-catalog.
Exit status 2: bad usage or an unreadable snapshot.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok((text, failed)) => {
            let mut out = std::io::stdout().lock();
            if out.write_all(text.as_bytes()).is_err() {
                return ExitCode::from(2);
            }
            if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
        }
        Err(message) => {
            eprintln!("mcp-catalog: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// The report to print and whether it is a failure.
fn run(args: &[String]) -> Result<(String, bool), String> {
    match args.split_first() {
        Some((command, rest)) if command == "diff" => {
            let [old, new] = rest else { return Err("diff takes two snapshot files".into()) };
            let old = snapshot::read(&PathBuf::from(old))?;
            let new = snapshot::read(&PathBuf::from(new))?;
            let changes = diff::diff(&old, &new);
            Ok((changes.render(), changes.is_breaking()))
        }
        Some((command, rest)) if command == "check" => {
            let mut profiles = Vec::new();
            let mut file = None;
            let mut rest = rest.iter();
            while let Some(arg) = rest.next() {
                let value = match arg.strip_prefix("--profile=") {
                    Some(v) => Some(v.to_owned()),
                    None if arg == "--profile" => Some(rest.next().cloned().ok_or("--profile needs a name")?),
                    None => None,
                };
                match value {
                    Some(v) if v == "all" => profiles.extend(Profile::ALL),
                    Some(v) => profiles.push(v.parse::<Profile>()?),
                    None if file.is_none() && !arg.starts_with('-') => file = Some(PathBuf::from(arg)),
                    None => return Err(format!("unexpected argument `{arg}`")),
                }
            }
            let file = file.ok_or("check needs a snapshot file")?;
            if profiles.is_empty() {
                profiles.extend(Profile::ALL);
            }
            let catalog = snapshot::read(&file)?;
            let mut text = String::new();
            let mut failed = false;
            for profile in profiles {
                let reports = check_snapshot(profile, &catalog);
                failed |= reports.iter().any(|r| !r.accepted());
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&render_report(profile, &reports));
            }
            Ok((text, failed))
        }
        Some((help, _)) if help == "--help" || help == "-h" || help == "help" => Ok((format!("{USAGE}\n"), false)),
        Some((other, _)) => Err(format!("unknown command `{other}`")),
        None => Err("a command is needed".into()),
    }
}
