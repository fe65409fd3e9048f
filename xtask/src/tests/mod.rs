//! Unit tests of the whole: rendering from fixed numbers (golden files, well-
//! formed SVG, escaping), the committed reports against the code, the help
//! against the defaults, and the drift between declarations and commands.

mod committed;
mod escaping;
mod grid;
mod hostile_input;
mod markers;
mod reader;
pub(crate) mod render;
pub(crate) mod synthetic;

/// The `[default: X]` of each option in a help text, by flag.
fn stated_defaults(help: &str) -> Vec<(String, String)> {
    help.lines()
        .filter_map(|l| {
            let flag = l.split_whitespace().find(|w| w.starts_with('-'))?;
            let flag = flag.trim_end_matches(',').to_string();
            let (_, rest) = l.split_once("[default: ")?;
            Some((flag, rest.split(']').next()?.to_string()))
        })
        .collect()
}

fn help_of(command: &str) -> String {
    use clap::CommandFactory;
    // Unwrapped, so that each option's line holds its default.
    let mut cli = crate::Cli::command().term_width(0);
    cli.build();
    cli.find_subcommand_mut(command)
        .expect(command)
        .render_help()
        .to_string()
}

/// The defaults the help states are the ones the code uses.
#[test]
fn help_states_the_defaults() {
    use crate::time::plan::{FULL, QUICK};
    let compare = help_of("compare");
    let stated = stated_defaults(&compare);
    let want = [
        ("--sizes", FULL.sizes),
        ("--sec", FULL.sec),
        ("--rounds", FULL.rounds),
        ("--budget", FULL.budget),
        ("--processes", FULL.processes),
        ("--size-cost", crate::decide::verdict::SIZE_COST),
        ("--threshold", crate::decide::verdict::THRESHOLD),
    ];
    for (flag, value) in want {
        assert!(
            stated.contains(&(flag.to_string(), value.to_string())),
            "compare {flag}: {stated:?}"
        );
    }
    // What --quick changes, listed after the options.
    let quick = compare
        .lines()
        .find_map(|l| l.strip_prefix("With --quick the defaults are "))
        .expect("the --quick defaults");
    for (flag, value) in [
        ("--sizes", QUICK.sizes),
        ("--rounds", QUICK.rounds),
        ("--sec", QUICK.sec),
        ("--budget", QUICK.budget),
    ] {
        assert!(
            quick.contains(&format!("{flag} {value},"))
                || quick.contains(&format!("{flag} {value}.")),
            "{flag}: {quick}"
        );
    }
    let references = compare
        .lines()
        .find_map(|l| l.strip_prefix("Default reference variants: "))
        .expect("the default reference variants");
    for c in bench_harness::registry::CIPHERS
        .iter()
        .filter(|c| !c.peers.is_empty())
    {
        let r = crate::select::ciphers::default_reference(c);
        assert!(
            references.contains(&format!("{} {r}", c.name)),
            "{}: {references}",
            c.name
        );
    }
    let gate = stated_defaults(&help_of("gate"));
    for (flag, value) in [
        ("--size-threshold", crate::cmd::gate::rows::SIZE_THRESHOLD),
        ("--speed-threshold", crate::cmd::gate::rows::SPEED_THRESHOLD),
        ("--time-threshold", crate::cmd::gate::rows::TIME_THRESHOLD),
    ] {
        assert!(
            gate.contains(&(flag.to_string(), value.to_string())),
            "gate {flag}: {gate:?}"
        );
    }
    let bloat = stated_defaults(&help_of("bloat"));
    assert!(
        bloat.contains(&("-n".into(), crate::cmd::bloat::LINES.into())),
        "{bloat:?}"
    );
}

/// ... and the code uses them: what the parsed command lines hold.
#[test]
fn parsed_defaults_are_the_consts() {
    use crate::cli;
    use crate::time::plan::{FULL, QUICK};
    use clap::Parser;
    let amount = |args: &[&str]| match crate::Cli::try_parse_from(args).unwrap().command {
        crate::Command::Compare(a) => (a.amount, a.threshold, a.reference),
        _ => unreachable!(),
    };
    let (full, threshold, reference) = amount(&["x", "compare", "cast6"]);
    assert_eq!(Ok(full.sizes), cli::sizes(FULL.sizes));
    assert_eq!(Ok(full.rounds), cli::rounds(FULL.rounds));
    assert_eq!(Ok(full.sec), cli::seconds(FULL.sec));
    assert_eq!(Ok(full.budget), cli::seconds(FULL.budget));
    assert_eq!(
        Ok(threshold),
        cli::percent(crate::decide::verdict::THRESHOLD)
    );
    assert_eq!(reference, None);
    let (quick, _, _) = amount(&["x", "compare", "cast6", "--quick"]);
    assert_eq!(Ok(quick.sizes), cli::sizes(QUICK.sizes));
    assert_eq!(Ok(quick.rounds), cli::rounds(QUICK.rounds));
    assert_eq!(Ok(quick.sec), cli::seconds(QUICK.sec));
    assert_eq!(Ok(quick.budget), cli::seconds(QUICK.budget));
    // A value given wins over --quick's default.
    let (given, _, _) = amount(&["x", "compare", "cast6", "--quick", "--rounds", "7"]);
    assert_eq!(given.rounds, 7);
    // The old name of --reference still works.
    let (_, _, old) = amount(&["x", "compare", "cast6", "--baseline-variant", "never"]);
    assert_eq!(old.as_deref(), Some("never"));
}

/// Drift: compare and the gate (which share `ciphers::named`) cover every
/// module `variants` declares, except the harness's calibration entries,
/// with exactly the declared variants.
#[test]
fn declared_variants_are_compared_and_gated() {
    let covered = crate::select::ciphers::named("all", true, "gate").expect("all");
    for (module, declared) in variants::DECLARED {
        let calibration = bench_harness::registry::CALIBRATION
            .iter()
            .any(|c| c.module == *module);
        match covered.iter().find(|c| c.module == *module) {
            Some(entry) => assert_eq!(
                crate::select::ciphers::variant_names(entry),
                *declared,
                "{module}"
            ),
            None => assert!(
                calibration,
                "variants::{module} is neither compared nor gated"
            ),
        }
    }
}

/// Drift: no workflow lists the ciphers by hand (a line naming two or more
/// of them), so that a new cipher is measured everywhere `compare all` is.
#[test]
fn workflows_name_no_cipher_list() {
    let dir = crate::env::workspace::root().join(".github/workflows");
    let names: Vec<&str> = bench_harness::registry::CIPHERS
        .iter()
        .map(|c| c.name)
        .collect();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}", dir.display());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let words: Vec<&str> = line
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .collect();
            let named = names.iter().filter(|n| words.contains(n)).count();
            assert!(
                named < 2,
                "{}:{}: lists ciphers by hand: {line}",
                path.display(),
                i + 1
            );
        }
    }
}

/// Drift: the workflows a crate's repository copies (`docs/workflows/`)
/// are a pair: the gate runs `gate --crate` against the pull request's base
/// and uploads the artifact the comment workflow, triggered by the gate
/// workflow's name, downloads; the gate needs a pinned inlinelab revision,
/// and the comment workflow never checks out code.
#[test]
fn the_crate_workflows_are_a_pair() {
    let dir = crate::env::workspace::root().join("docs/workflows");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let (gate, comment) = (
        read("inlinelab-gate.yml"),
        read("inlinelab-gate-comment.yml"),
    );
    // The workflow's name (a line of its own at the top level), and the
    // artifact (an indented `name:` in a step's `with`).
    let top = |text: &str, key: &str| text.lines().any(|l| l == key);
    let indented =
        |text: &str, key: &str| text.lines().any(|l| l.starts_with(' ') && l.trim() == key);
    assert!(top(&gate, "name: inlinelab-gate"), "{gate}");
    assert!(
        indented(&gate, "name: inlinelab-gate"),
        "the artifact: {gate}"
    );
    assert!(top(&comment, "name: inlinelab-gate-comment"), "{comment}");
    assert!(
        indented(&comment, "workflows: [inlinelab-gate]"),
        "triggered by the gate: {comment}"
    );
    assert!(
        indented(&comment, "name: inlinelab-gate"),
        "downloads the gate's artifact: {comment}"
    );
    assert!(gate.contains("cargo xtask gate --crate "), "{gate}");
    assert!(gate.contains("--against \"origin/${BASE_REF}\""), "{gate}");
    assert!(gate.contains("--comment "), "{gate}");
    assert!(gate.contains("ref: ${{ env.INLINELAB_REV }}"), "{gate}");
    assert!(gate.contains("apt-get install -y valgrind"), "{gate}");
    assert!(gate.contains("permissions:\n  contents: read\n"), "{gate}");
    assert!(!comment.contains("actions/checkout"), "{comment}");
}

/// Drift: ARCHITECTURE.md's codemap names every folder of `xtask/src`
/// (as `` `NAME/` ``), and every folder it names exists in the workspace.
#[test]
fn the_codemap_names_the_folders_there_are() {
    let root = crate::env::workspace::root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut here: Vec<String> = std::fs::read_dir(root.join("xtask/src"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    here.sort();
    for folder in &here {
        assert!(
            text.contains(&format!("`{folder}/`")),
            "ARCHITECTURE.md does not name xtask/src/{folder}/"
        );
    }
    // Every `path/` it names is a folder somewhere in the workspace: at the
    // root, or below a crate's folder or its `src`.
    let crates = [
        "",
        "xtask/src",
        "codegen/src",
        "bench-harness/src",
        "variants",
        "xtask",
        "reports",
    ];
    let named = text.split('`').skip(1).step_by(2).filter(|w| {
        // A placeholder (`machines/LABEL/`) names no folder.
        w.len() > 1
            && w.ends_with('/')
            && (w.chars())
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_-./".contains(c))
    });
    for folder in named {
        let found = crates.iter().any(|c| root.join(c).join(folder).is_dir())
            || walkdir::WalkDir::new(&root)
                .max_depth(5)
                .into_iter()
                .flatten()
                .any(|e| {
                    e.file_type().is_dir()
                        && e.path().ends_with(folder.trim_end_matches('/'))
                        && !e.path().starts_with(root.join("target"))
                });
        assert!(
            found,
            "ARCHITECTURE.md names `{folder}`, which is not a folder here"
        );
    }
}
