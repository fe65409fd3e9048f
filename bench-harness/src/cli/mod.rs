//! The `tcrypt` command line, one job a module, each importing only those
//! before it: [`parse`](mod@parse) turns the arguments into a [`Config`] (every bad
//! input is a [`UsageError`](crate::UsageError) naming what is allowed),
//! [`plan`](mod@plan) resolves it into [`Plan`]s, [`list`](mod@list) prints
//! `--list`, [`run`](mod@run) times the plans, and [`json`] is what
//! `--json` writes.

pub mod json;
pub mod list;
pub mod parse;
pub mod plan;
pub mod run;

pub use json::{JSON_WRITER, Report, json_owner, owns_json};
pub use list::list;
pub use parse::{
    Config, DEFAULT_ROUNDS, MAX_BLOCK, MAX_KEY, MAX_LIST, MAX_ROUNDS, MAX_SECONDS, MIN_ROUNDS,
    Parsed, parse,
};
pub use plan::{EngineKind, Plan, Plans, plan};
pub use run::run;
