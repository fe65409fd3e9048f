//! A crate's inline attributes (`compare --crate`): the headline sentence
//! and the table, each row judged from the report's entries at render time
//! (`report::annotations`).

use crate::decide::interaction;
use crate::decide::verdict::{pct, size_pct};
use crate::decide::worth::Outcome;
use crate::env::escape::{md_cell, md_cell_fragment, md_code, md_code_cell, md_text};
use crate::render::markdown::{per_byte, why};
use crate::render::worth;
use crate::report::Report;
use crate::report::annotations::Annotated;
use std::fmt::Write;

/// The patch's effect in words: its variant's footprint and speed against
/// `published`, from the run that measured it whole (the suggested set's
/// own run, or this one); `None` without a patch.
fn patch_effect(r: &Report, code: &dyn Fn(&str) -> String) -> Option<String> {
    let p = r.annotations.as_ref()?.patch.as_ref()?;
    let Some(t) = &p.trimmed else {
        return effect_of(r, &p.variant, code);
    };
    Some(format!(
        "{}, which is {} less {} edit(s) to functions no build reaches (built whole: the same hot path and key schedule, no larger), so {}'s figures: {}",
        code(&p.variant),
        code(&t.of),
        t.left_out.len(),
        code(&t.of),
        effect_of(r, &t.of, code)?
    ))
}

/// The figures of the patch's set `name` against `published`, from the
/// run that measured it (or the entry whose machine code it is).
fn effect_of(r: &Report, name: &str, code: &dyn Fn(&str) -> String) -> Option<String> {
    let a = r.annotations.as_ref()?;
    if let Some(s) = &a.suggestion
        && s.held.as_deref() == Some(name)
        && s.same_code_as.is_some()
    {
        return same_code_effect(r, s, code);
    }
    let (run, which) = match r.suggested.as_deref() {
        Some(s) if s.variants.iter().any(|e| e.name == name) => (s, "in the suggested set's run"),
        _ => (r, "in this run"),
    };
    let find = |n: &str| run.variants.iter().find(|e| e.name == n);
    let (pick, published) = (find(name)?, find(&run.run.reference)?);
    let (a, b) = (
        pick.artifact.as_ref()?.footprint_bytes,
        published.artifact.as_ref()?.footprint_bytes,
    );
    // A set timed once as another's machine code has that one's speed.
    let timed_as = match &pick.overall {
        None => pick.timed_as().and_then(find),
        Some(_) => None,
    };
    let speed = match (&pick.overall, timed_as) {
        (Some(o), _) => pct(o),
        (None, Some(t)) if t.name == run.run.reference => {
            format!("the same (the same machine code as {})", code(&t.name))
        }
        (None, Some(t)) => format!(
            "{} (the same machine code as {}, timed once as it)",
            t.overall.as_ref().map_or("not timed".to_string(), pct),
            code(&t.name)
        ),
        _ => "not timed".to_string(),
    };
    Some(format!(
        "{} (measured whole {which}): footprint {} ({a} bytes against {b}) and speed {speed} against {} over the crypt cases",
        code(name),
        size_pct(a as f64 / b.max(1) as f64 - 1.0),
        code(&run.run.reference),
    ))
}

/// The figures of the set that held as the first run's entry `same` (the
/// same machine code, no larger), against `published`: its own footprint,
/// as the screen sized it, and that entry's speed. The report's sentence
/// and `--explain-in-source`'s comment say them.
pub struct SameCode<'a> {
    pub held: &'a str,
    pub same: &'a str,
    /// The set's footprint and `published`'s, in bytes.
    pub footprint: u64,
    pub published: u64,
    /// `same`'s speed against `published`, as a percentage; `None` when
    /// `same` is `published` itself.
    pub speed: Option<String>,
}

impl SameCode<'_> {
    /// Of suggestion `s` in report `r`; `None` when no set held as another
    /// entry's code, or a footprint is missing.
    pub fn of<'a>(
        r: &'a Report,
        s: &'a crate::report::annotations::Suggestion,
    ) -> Option<SameCode<'a>> {
        let find = |n: &str| r.variants.iter().find(|e| e.name == n);
        let same = s.same_code_as.as_deref()?;
        let held = s.held.as_deref()?;
        Some(SameCode {
            held,
            same,
            footprint: s.screen.as_ref()?.footprint(held)?,
            published: find(&r.run.reference)?.artifact.as_ref()?.footprint_bytes,
            speed: if same == r.run.reference {
                None
            } else {
                Some(
                    find(same)?
                        .overall
                        .as_ref()
                        .map_or("not timed".to_string(), pct),
                )
            },
        })
    }

    /// The footprint's change, as a percentage.
    pub fn size(&self) -> String {
        size_pct(self.footprint as f64 / self.published.max(1) as f64 - 1.0)
    }
}

/// The effect of the set `s` that held as the first run's entry whose
/// machine code it is ([`SameCode`]), in the report's words.
fn same_code_effect(
    r: &Report,
    s: &crate::report::annotations::Suggestion,
    code: &dyn Fn(&str) -> String,
) -> Option<String> {
    let c = SameCode::of(r, s)?;
    let speed = match &c.speed {
        None => format!("the same (the same machine code as {})", code(c.same)),
        Some(speed) => format!(
            "{speed} (the same machine code as {}, measured in this run)",
            code(c.same)
        ),
    };
    Some(format!(
        "{} (built whole; its hot path and key schedule are {}'s machine code): footprint {} ({} bytes against {}) and speed {speed} against {} over the crypt cases",
        code(c.held),
        code(c.same),
        c.size(),
        c.footprint,
        c.published,
        code(&r.run.reference),
    ))
}

/// The suggested set, on the first screen: what it combines, whether it
/// held in its own run (or as the first run's pick's machine code), and
/// that run's steps.
pub fn render_suggestion(w: &mut String, r: &Report) {
    let Some(a) = &r.annotations else { return };
    let Some(s) = &a.suggestion else { return };
    let Some(round) = r.suggested.as_deref() else {
        same_code_suggestion(w, r, s);
        return;
    };
    let against = match &s.against {
        Some(p) => format!(
            "{} and the first run's pick {}",
            md_code(&round.run.reference),
            md_code(p)
        ),
        None => md_code(&round.run.reference),
    };
    let list = |v: &[String]| v.iter().map(|c| md_code(c)).collect::<Vec<_>>().join(", ");
    let outcome = match &s.held {
        Some(h) => format!("{} held: the patch above is its diff.", md_code(h)),
        None => format!(
            "None of them held (that run's pick: {}): the patch above is the first run's pick.",
            round
                .verdict
                .pick
                .as_deref()
                .map_or("none".to_string(), md_code)
        ),
    };
    let evidence = if s.given {
        "the parts given with `--suggest`"
    } else {
        "each attribute whose removal was *drop* or *no effect* removed, each function whose `always` was *add* given it"
    };
    match &s.screen {
        Some(screen) => {
            let _ = writeln!(
                w,
                "**The suggested set, measured whole:** {set} is {parts} applied together ({edits} edit(s): {evidence}). Before any timing, callgrind counted each set in {cases}: a set passes when it costs no more instructions than its parts did alone ({base} plus each part's change from {published}, within {tolerance:.0}% of {base}'s) and is no larger than {base} or than its parts predict (within the no-effect floor of its footprint); where the whole set did not, the search (delta debugging, `decide/interaction.rs`) built smaller sets, and the largest that passed were checked against {published} and timed in a run of their own, interleaved with {against}. {outcome}\n",
                set = md_code(&s.variant),
                parts = list(&s.combines),
                edits = s.edits.len(),
                cases = md_text(&screen.cases.join(", ")),
                base = md_code(&screen.base),
                published = md_code(&round.run.reference),
                tolerance = interaction::TOLERANCE * 100.0,
            );
            screen_table(w, s, screen, &round.run.reference, &round.variants);
            let _ = writeln!(w, "That run's steps:\n");
        }
        None => {
            let tried = if s.tried.is_empty() {
                String::new()
            } else {
                let sets: Vec<String> = (s.tried.iter())
                    .map(|x| format!("{} ({})", md_code(&x.variant), list(&x.combines)))
                    .collect();
                format!(
                    " Beside it, should the whole set lose (valgrind was not there to count them first): each half of the set and each set that leaves one part out (delta debugging's first step; the same machine code timed once): {}.",
                    sets.join("; ")
                )
            };
            let _ = writeln!(
                w,
                "**The suggested set, measured whole:** {} is {} applied together ({} edit(s): {evidence}), built, checked against {} and timed in a run of its own, interleaved with {against}.{tried} {outcome} That run's steps:\n",
                md_code(&s.variant),
                list(&s.combines),
                s.edits.len(),
                md_code(&round.run.reference),
            );
        }
    }
    crate::render::markdown::glance::chain_table(w, round);
}

/// The suggested set that held as the first run's entry of the same
/// machine code, with no run of its own: what it combines, the screen.
fn same_code_suggestion(w: &mut String, r: &Report, s: &crate::report::annotations::Suggestion) {
    let (Some(same), Some(held)) = (&s.same_code_as, &s.held) else {
        return;
    };
    let list = |v: &[String]| v.iter().map(|c| md_code(c)).collect::<Vec<_>>().join(", ");
    let kept = if *held == s.variant {
        String::new()
    } else {
        format!(
            " The search kept {} ({}).",
            md_code(held),
            list(s.combines_of(held).unwrap_or_default())
        )
    };
    let _ = writeln!(
        w,
        "**The suggested set, built whole:** {set} is {parts} applied together ({edits} edit(s)), built and checked against {published}{screened}.{kept} The hot path and key schedule of {held} are the same machine code as {same}'s (addresses normalized), and it is no larger: identical machine code is one result, so it holds as the result this run measured for {same}, with no run of its own. The patch above is its diff.\n",
        set = md_code(&s.variant),
        parts = list(&s.combines),
        edits = s.edits.len(),
        published = md_code(&r.run.reference),
        held = md_code(held),
        same = md_code(same),
        screened = if s.screen.is_some() {
            "; callgrind counted each set first"
        } else {
            ""
        },
    );
    if let Some(screen) = &s.screen {
        screen_table(w, s, screen, &r.run.reference, &[]);
    }
}

/// Each set the screen counted: what it applies, its footprint and
/// instructions beside what its parts predict, whether it passed (and by
/// how much it missed), and whether it was timed (among `timed`, the
/// suggested run's entries) or held.
fn screen_table(
    w: &mut String,
    s: &crate::report::annotations::Suggestion,
    screen: &crate::report::annotations::Screen,
    published: &str,
    timed: &[crate::report::Entry],
) {
    use super::cells::bytes;
    let figures = |v: Option<&[f64]>| {
        v.map_or("not counted".to_string(), |v| {
            v.iter()
                .map(|x| bytes(x.max(0.0).round() as u64))
                .collect::<Vec<_>>()
                .join(" / ")
        })
    };
    let _ = writeln!(
        w,
        "| set | applies | footprint | its parts predict | instructions per operation (each case) | its parts predict | screen | timed |\n|---|---|---:|---:|---:|---:|---|---|"
    );
    let sets = std::iter::once((&s.variant, &s.combines))
        .chain(s.tried.iter().map(|t| (&t.variant, &t.combines)));
    for (name, combines) in sets {
        let count = screen.count(name);
        let predicted = screen.predicted(published, combines);
        let footprint = screen.footprint(name);
        let predicted_footprint = screen.predicted_footprint(published, combines);
        let outcome = match screen.missed(published, name, combines) {
            Some(m) if m.passed() => "passes".to_string(),
            Some(m) => {
                let missed: Vec<String> = [
                    m.instructions
                        .map(|x| format!("{:+.1}% instructions", x * 100.0)),
                    m.bytes.map(|b| format!("{b:+} bytes")),
                ]
                .into_iter()
                .flatten()
                .collect();
                format!("interacts: {} over its parts", missed.join(", "))
            }
            None => match screen.uncounted.iter().find(|u| &u.variant == name) {
                Some(u) => format!("not counted ({})", u.why),
                None => "not counted".to_string(),
            },
        };
        let held = s.held.as_ref() == Some(name);
        let timed = if timed.iter().any(|e| &e.name == name) {
            if held { "yes: held" } else { "yes" }
        } else if held {
            "no: held as the same machine code"
        } else {
            "no"
        };
        let applies: Vec<String> = combines.iter().map(|c| md_code_cell(c)).collect();
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {timed} |",
            md_code_cell(name),
            few(&applies),
            footprint.map_or("not sized".to_string(), bytes),
            predicted_footprint.map_or(String::new(), |p| bytes(p.max(0) as u64)),
            figures(count),
            figures(predicted.as_deref()),
            md_cell(&outcome),
        );
    }
    let _ = writeln!(w);
}

/// At most six names, then how many more: `a, b, c, d, e, f and 84 more`.
fn few(names: &[String]) -> String {
    match names.len() {
        0..=6 => names.join(", "),
        n => format!("{} and {} more", names[..6].join(", "), n - 6),
    }
}

/// The first lines of the patch file: its generated marker, what it is,
/// its effect and how to apply it, each a `#` line that `git apply` and
/// `patch` pass over.
pub fn patch_preamble(r: &Report) -> String {
    let mut w = format!(
        "<!-- {} -->\n",
        crate::env::escape::md_comment(&format!(
            "Generated by `{}`; do not edit: run it again.",
            r.generated_by
        ))
    );
    let one = |s: &str| crate::env::escape::one_line(s);
    let a = r.annotations.as_ref();
    if let (Some(a), Some(effect), Some(p)) = (
        a,
        patch_effect(r, &|s| format!("`{s}`")),
        a.and_then(|a| a.patch.as_ref()),
    ) {
        let set = p
            .trimmed
            .as_ref()
            .map_or(p.variant.as_str(), |t| t.of.as_str());
        let what = match &a.suggestion {
            Some(s) if s.held.as_deref() == Some(set) => {
                let parts = (s.tried.iter())
                    .find(|x| x.variant == set)
                    .map_or(&s.combines, |x| &x.combines);
                let how = match &s.same_code_as {
                    Some(same) => format!("built whole: the same machine code as {same}"),
                    None => "measured whole".to_string(),
                };
                format!(
                    "the suggested set {set} ({} applied together, {how})",
                    few(parts)
                )
            }
            _ => "the verdict's pick".to_string(),
        };
        let what = match &p.trimmed {
            Some(t) => format!(
                "{what} less {} edit(s) to functions no build reaches (built whole: the same machine code)",
                t.left_out.len()
            ),
            None => what,
        };
        let of = match &p.dependency {
            Some(d) => format!(" of its dependency {} {}", one(&d.krate), one(&d.version)),
            None => String::new(),
        };
        let _ = writeln!(
            w,
            "# {} {}: {} as {} edit(s) of inline attributes{of}.",
            one(&a.krate),
            one(&a.version),
            one(&what),
            p.edits.len()
        );
        let _ = writeln!(w, "# It is {}.", one(&effect));
        let (krate, version) = patched(a, p);
        let _ = writeln!(
            w,
            "# Apply it in a checkout of {} {}: git apply {} (or patch -p1 < {}).",
            one(krate),
            one(version),
            one(&p.file),
            one(&p.file)
        );
        if p.dependency.is_some() {
            let _ = writeln!(
                w,
                "# It is a patch of {} {}, not of {}: build {} {} with that checkout through [patch.crates-io] ({} = {{ path = \"...\" }}).",
                one(krate),
                one(version),
                one(&a.krate),
                one(&a.krate),
                one(&a.version),
                one(krate),
            );
        }
    }
    w
}

/// The package a patch is of, and its version: the `--also` dependency
/// it edits, or the crate of the table `a`.
fn patched<'a>(
    a: &'a crate::report::annotations::Annotations,
    p: &'a crate::report::annotations::Patch,
) -> (&'a str, &'a str) {
    match &p.dependency {
        Some(d) => (&d.krate, &d.version),
        None => (&a.krate, &a.version),
    }
}

/// The patch, on the first screen: the file, its effect, and its edits
/// (of the crate, or of the `--also` dependency the pick edits).
pub fn render_patch(w: &mut String, r: &Report) {
    let Some(a) = &r.annotations else { return };
    let Some(p) = &a.patch else {
        if r.verdict.pick.as_deref() == Some(r.run.reference.as_str()) {
            let _ = writeln!(w, "**The crate as published is the pick: no patch.**\n");
        }
        return;
    };
    let Some(effect) = patch_effect(r, &|s| md_code(s)) else {
        return;
    };
    let (patched_krate, patched_version) = patched(a, p);
    let (krate, version) = (md_text(patched_krate), md_text(patched_version));
    let of = if p.dependency.is_some() {
        format!(" of {krate} {version} (the dependency)")
    } else {
        String::new()
    };
    let _ = write!(
        w,
        "**The answer as a patch{of}, [{}]({}):** {effect}. ",
        md_code(&p.file),
        p.file,
    );
    if p.dependency.is_some() {
        let _ = writeln!(
            w,
            "It edits {krate} {version}, not {}: `git apply {}` in a checkout of {krate} {version}, and build {} {} with that checkout through `[patch.crates-io]` ({}). Locations are in {krate}'s package:\n",
            md_text(&a.krate),
            p.file,
            md_text(&a.krate),
            md_text(&a.version),
            md_code(&format!("{patched_krate} = {{ path = \"...\" }}")),
        );
    } else {
        let _ = writeln!(
            w,
            "`git apply {}` in a checkout of {krate} {version}:\n",
            p.file
        );
    }
    let _ = writeln!(
        w,
        "| function | where | as published | with the patch |\n|---|---|---|---|"
    );
    let attr = |x: &Option<String>| {
        x.as_ref()
            .map_or("none".to_string(), |m| md_code_cell(&format!("#[{m}]")))
    };
    for e in &p.edits {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} |",
            md_code_cell(&e.path),
            md_cell(&e.location),
            attr(&e.published),
            attr(&e.patched)
        );
    }
    let _ = writeln!(w);
    if let Some(t) = &p.trimmed {
        let left: Vec<String> = (t.left_out.iter())
            .map(|e| format!("{} ({})", md_code(&e.path), md_text(&e.location)))
            .collect();
        let _ = writeln!(
            w,
            "**Left out of the patch:** {} of {}'s edits, to functions no call reaches in the builds of `published` and of the set (no call LLVM's inlining remarks name from a function reached from the artifact's entry points, nor the hot path); the set without them, built whole, has the same hot path and key schedule, no larger: {}.\n",
            t.left_out.len(),
            md_code(&t.of),
            left.join(", ")
        );
    }
}

/// The headline, first: what the attributes are worth, in one sentence.
pub fn render_headline(w: &mut String, r: &Report) {
    let Some(a) = &r.annotations else { return };
    let judged = worth::judge(r, a);
    let added = worth::judge_added(r, a);
    let _ = writeln!(w, "**{}**\n", md_text(&worth::headline(a, &judged, &added)));
}

/// The table: each attribute, where it is, and what removing it did.
pub fn render_table<'a>(w: &mut String, r: &'a Report) {
    let Some(a) = &r.annotations else { return };
    let judged = worth::judge(r, a);
    let bar = r.noise().bar();
    let _ = writeln!(w, "## The crate's inline attributes\n");
    let _ = writeln!(
        w,
        "{} {}, type {}. Each attribute compiled on this target was removed in a variant of its own (`drop_N`), built through the same shim and timed against the crate as published. Speed is the variant's over `published`'s (below 0% the crate is slower without the attribute), with its 95% interval over the measuring processes; the bar is {:+.1}% either way. *keep*: slower without it past the bar, or larger and no faster; *drop*: smaller and no slower without it, or faster past the bar; *no effect*: the same hot-path machine code, or speed within the bar and a footprint moved by less than {} bytes or {:.1}%; *unsettled*: the interval reaches past the bar.\n",
        md_text(&a.krate),
        md_text(&a.version),
        md_text(&a.ty),
        (bar - 1.0) * 100.0,
        crate::decide::worth::NO_EFFECT_BYTES,
        crate::decide::worth::NO_EFFECT_FRACTION * 100.0
    );
    same_as_registry(w, r);
    backends(w, a);
    let row = |j: &worth::Judged<'a, Annotated>| attribute_row(r, j);
    let own = judged.iter().filter(|j| j.row.krate.is_none()).map(row);
    table(w, own, &none_compiled(&a.krate, &a.version, a.written));
    // Each `--also` dependency's rows, under its name: its file paths are
    // its package's.
    for dep in &a.also {
        let _ = writeln!(
            w,
            "### The dependency {} {}'s inline attributes (`--also`)\n\n**{}** Each attribute compiled on this target in the crate's build was removed in a variant of its own, named with the dependency, its copy patched into the shim (`[patch.crates-io]`) and the crate as published; so are its policies (`none`, `inline`, `always`, `never`). Locations are in {}'s package.\n",
            md_text(&dep.krate),
            md_text(&dep.version),
            md_text(&worth::dependency_headline(dep, &judged)),
            md_text(&dep.krate),
        );
        let of_dep = (judged.iter()).filter(|j| j.row.krate.as_deref() == Some(dep.krate.as_str()));
        table(
            w,
            of_dep.map(row),
            &none_compiled(&dep.krate, &dep.version, dep.written),
        );
    }
    // Which crate's attributes matter most: instructions per byte by
    // crate, beside the rows decided (`--also` only).
    per_byte::render(w, r, a, &judged);
    let unsettled: Vec<&str> = (judged.iter())
        .filter(|j| j.outcome == Outcome::Unsettled)
        .map(|j| j.row.variant.as_str())
        .collect();
    if !unsettled.is_empty() {
        let _ = writeln!(
            w,
            "To settle the unsettled rows, time them alone with more processes: {}\n",
            md_code(&format!(
                "{} --variants {} --processes 8",
                r.generated_by.trim_end_matches(" --quick"),
                unsettled.join(",")
            ))
        );
    }
    let added = worth::judge_added(r, a);
    if added.is_empty() {
        return;
    }
    let _ = writeln!(
        w,
        "Functions the crate as published leaves out of line on the hot path (its call graph from `inlinelab_crypt`), each given `#[inline(always)]` in a variant of its own (`add_K`). *add*: faster past the bar for its growth (the size cost per doubling included).\n"
    );
    let rows = added.iter().map(|j| Row {
        number: j.row.number,
        path: &j.row.path,
        location: &j.row.location,
        attr: (j.row.attr.as_deref())
            .map_or_else(|| "none".to_string(), |a| md_code_cell(&format!("#[{a}]"))),
        variant: &j.row.variant,
        cells: cells(j),
        why: whys(r, &j.row.variant, &j.row.path),
        secrets: secrets_change(r, &j.row.variant),
    });
    table(w, rows, "");
}

/// What the table of a package (`krate` `version`, `written` attributes
/// in all) says when this target compiles none of its attributes: a
/// sentence, not a table without rows.
fn none_compiled(krate: &str, version: &str, written: usize) -> String {
    let written = match written {
        0 => "none is written in it".to_string(),
        n => format!("{n} written in it, each under a `cfg` this target leaves out"),
    };
    format!(
        "No inline attribute of {} {} is compiled on this target ({written}): there is no row, and no variant removes one.",
        md_text(krate),
        md_text(version)
    )
}

/// An attribute's row of the table, judged as `j`.
fn attribute_row<'a>(r: &Report, j: &worth::Judged<'a, Annotated>) -> Row<'a> {
    Row {
        number: j.row.number,
        path: &j.row.path,
        location: &j.row.location,
        attr: md_code_cell(&format!("#[{}]", j.row.attr)),
        variant: &j.row.variant,
        cells: cells(j),
        why: whys(r, &j.row.variant, &j.row.path),
        secrets: secrets_change(r, &j.row.variant),
    }
}

/// A row's last three cells: footprint change, speed change with its
/// interval, outcome (with why, when it was not timed).
fn cells<R>(j: &worth::Judged<'_, R>) -> [String; 3] {
    let outcome = match (j.outcome, j.status) {
        (Outcome::NotTimed, Some(s)) => format!("not timed ({s})"),
        (o, _) => o.word().to_string(),
    };
    [
        j.size_change.map_or_else(String::new, size_pct),
        j.speed.as_ref().map_or_else(String::new, pct),
        outcome,
    ]
}

/// One row of a table of attributes.
struct Row<'a> {
    number: usize,
    path: &'a str,
    location: &'a str,
    /// The attribute as published, a cell.
    attr: String,
    variant: &'a str,
    /// Footprint, speed, outcome ([`cells`]).
    cells: [String; 3],
    /// LLVM's decisions for the function as published and in the variant
    /// ([`whys`]).
    why: [String; 2],
    /// How the variant's secret-dependence differs from published's
    /// ([`secrets_change`]); empty when it does not, or is unknown.
    secrets: String,
}

/// Where `variant` branches on or indexes memory by a secret in another
/// number of code locations than the crate as published (memcheck's
/// sites): `branches 2 (published 0); indexes 12 (published 12)`; empty
/// when the numbers are the same, or either is unmeasured.
fn secrets_change(r: &Report, variant: &str) -> String {
    let counts = |name: &str| {
        (r.entries().find(|e| e.name == name))
            .and_then(|e| e.secrets.as_ref())
            .and_then(|s| s.counts())
    };
    match (counts(variant), counts(&r.run.reference)) {
        (Some(v), Some(p)) if v != p => format!(
            "branches {} ({} {}); indexes {} ({} {})",
            v.0, r.run.reference, p.0, v.1, r.run.reference, p.1
        ),
        _ => String::new(),
    }
}

/// LLVM's decisions for calls to the function `path`, as published and in
/// `variant`: from each build's remarks (`render/markdown/why.rs`).
fn whys(r: &Report, variant: &str, path: &str) -> [String; 2] {
    [
        why::cell(r, &r.run.reference, path),
        why::cell(r, variant, path),
    ]
}

/// The table of attributes (or of added ones): number, function, where,
/// the attribute as published, the variant, [`cells`], and why LLVM
/// inlined each call or left it a call, as published and in the variant
/// (the why columns left out for a report that has no remarks); without
/// rows, the sentence `none` instead.
fn table<'a>(w: &mut String, rows: impl Iterator<Item = Row<'a>>, none: &str) {
    let rows: Vec<Row> = rows.collect();
    if rows.is_empty() {
        if !none.is_empty() {
            let _ = writeln!(
                w,
                "{none}
"
            );
        }
        return;
    }
    let with_why = rows.iter().any(|r| r.why.iter().any(|c| !c.is_empty()));
    let with_secrets = rows.iter().any(|r| !r.secrets.is_empty());
    let _ = writeln!(
        w,
        "| # | function | where | as published | variant | footprint | speed | outcome |{}{}",
        if with_why {
            " LLVM, as published | LLVM, in the variant |"
        } else {
            ""
        },
        if with_secrets {
            " secret-dependent sites, where they differ |"
        } else {
            ""
        }
    );
    let _ = writeln!(
        w,
        "|---:|---|---|---|---|---:|---:|---|{}{}",
        if with_why { "---|---|" } else { "" },
        if with_secrets { "---|" } else { "" }
    );
    for row in rows {
        let [size, speed, outcome] = &row.cells;
        let why = if with_why {
            format!(
                " {} | {} |",
                md_cell_fragment(&row.why[0]),
                md_cell_fragment(&row.why[1])
            )
        } else {
            String::new()
        };
        let secrets = if with_secrets {
            format!(" {} |", md_cell(&row.secrets))
        } else {
            String::new()
        };
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {size} | {speed} | {outcome} |{why}{secrets}",
            row.number,
            md_code_cell(row.path),
            md_cell(row.location),
            row.attr,
            md_code_cell(row.variant),
        );
    }
    let _ = writeln!(w);
}

/// The crate's modules its hot path reaches, the CPU's features that a
/// crate choosing at run time chooses by, and which module ran in each
/// mode family, timed and counted.
fn backends(w: &mut String, a: &crate::report::annotations::Annotations) {
    ran(w, a);
    if a.backends.is_empty() {
        return;
    }
    let list = |v: &[String]| v.iter().map(|s| md_code(s)).collect::<Vec<_>>().join(", ");
    let _ = writeln!(
        w,
        "Its hot path as published reaches {} of the crate's modules: {}{}. This CPU has {}. Instructions are counted under callgrind, whose CPU has no AVX-512: a crate that picks its backend at run time may count on another one there than it was timed on.\n",
        a.backends.len(),
        list(&a.backends),
        if a.backends.len() > 1 {
            " (where it holds several backends, the crate picks one at run time)"
        } else {
            ""
        },
        if a.cpu_features.is_empty() {
            "none of the extensions crates pick backends by".to_string()
        } else {
            list(&a.cpu_features)
        }
    );
}

/// Which of the crate's modules ran in each mode family: sampled on this
/// CPU and counted by callgrind (a report written before they were
/// observed says nothing).
fn ran(w: &mut String, a: &crate::report::annotations::Annotations) {
    let Some(ran) = &a.ran else { return };
    let _ = writeln!(
        w,
        "Which backend ran, as published, in the case of each mode family whose instructions are counted: the crate's module with the most of the instruction-pointer samples taken on this CPU while the case ran, and the one with the most of callgrind's instructions, each share of all the case's samples or instructions (the shim's, `cipher`'s and, for samples, the harness's included; the JSON's `annotations.ran` keeps every count):\n"
    );
    for line in ran.sentences(&|s: &str| md_code(s), &|s: &str| md_text(s)) {
        let _ = writeln!(w, "- {line}.");
    }
    let _ = writeln!(w);
}

/// Whether the copy as published builds what the registry's crate builds:
/// the reference and the peer's hot paths compared (addresses normalized),
/// with their footprints.
fn same_as_registry(w: &mut String, r: &Report) {
    let published = (r.variants.iter())
        .find(|e| e.name == r.run.reference)
        .and_then(|e| e.artifact.as_ref());
    let peer = r.peers.first().and_then(|e| e.artifact.as_ref());
    let Some((p, peer)) = published.zip(peer) else {
        return;
    };
    let same = p.hot_path_code.is_some() && p.hot_path_code == peer.hot_path_code;
    let _ = writeln!(
        w,
        "{} and the registry crate (the peer) {} ({} and {} bytes of footprint).\n",
        md_code(&r.run.reference),
        if same {
            "have the same hot-path machine code: the copy builds what the registry's crate builds"
        } else {
            "differ in their hot-path machine code"
        },
        p.footprint_bytes,
        peer.footprint_bytes
    );
}

#[cfg(test)]
mod tests {
    use crate::report::annotations::{Annotated, Annotations};

    /// A crate's annotations with `written` attributes and nothing else:
    /// each test sets what it looks at.
    fn annotations(krate: &str, written: usize) -> Annotations {
        Annotations {
            krate: krate.into(),
            version: "0.1.0".into(),
            ty: "Toy".into(),
            written,
            rows: Vec::new(),
            added: Vec::new(),
            backends: Vec::new(),
            cpu_features: Vec::new(),
            ran: None,
            patch: None,
            suggestion: None,
            also: Vec::new(),
        }
    }

    /// The section names every attribute, escaped, and its first sentence
    /// counts them.
    #[test]
    fn every_attribute_is_a_row() {
        let mut r = crate::report::fixture::report();
        let variant = r.variants[1].name.clone();
        r.annotations = Some(Annotations {
            rows: vec![Annotated {
                number: 1,
                function: "round".into(),
                path: "<Toy as BlockCipherEncBackend>::round|x".into(),
                location: "src/lib.rs:12".into(),
                attr: "inline(always)".into(),
                variant,
                krate: None,
            }],
            ..annotations("toy|cipher", 3)
        });
        let mut md = String::new();
        super::render_headline(&mut md, &r);
        super::render_table(&mut md, &r);
        assert!(md.contains("Of toy\\|cipher 0.1.0's 1 inline attribute compiled on this target (2 more for other targets)"), "{md}");
        assert!(md.contains("round\\|x"), "{md}");
        let rows = md.lines().filter(|l| l.starts_with("| 1 |")).count();
        assert_eq!(rows, 1, "{md}");
        assert!(!md.contains("Which backend ran"), "{md}");
        // No secrets measured: no such column.
        assert!(!md.contains("secret-dependent sites"), "{md}");
    }

    /// An `--also` dependency's rows follow the crate's under its own
    /// heading and sentence; the crate's sentence counts its own. A row
    /// without a crate reads and writes as before `--also`.
    #[test]
    fn a_dependencys_rows_follow_the_crates() {
        let mut r = crate::report::fixture::report();
        let (own, dep) = (r.variants[1].name.clone(), r.variants[2].name.clone());
        let row = |number, variant: &str, krate: Option<&str>| Annotated {
            number,
            function: "round".into(),
            path: "round".into(),
            location: "src/lib.rs:12".into(),
            attr: "inline".into(),
            variant: variant.into(),
            krate: krate.map(str::to_string),
        };
        r.annotations = Some(Annotations {
            rows: vec![row(1, &own, None), row(1, &dep, Some("aes"))],
            also: vec![crate::report::annotations::AlsoCrate {
                krate: "aes".into(),
                version: "0.9.4".into(),
                written: 3,
            }],
            ..annotations("toy", 1)
        });
        let mut md = String::new();
        super::render_headline(&mut md, &r);
        super::render_table(&mut md, &r);
        assert!(
            md.contains("Of toy 0.1.0's 1 inline attribute compiled on this target,"),
            "{md}"
        );
        let heading = md
            .find("### The dependency aes 0.9.4's inline attributes")
            .expect("its heading");
        assert!(
            md.contains("Of the dependency aes 0.9.4's 1 inline attributes compiled on this target (2 more for other targets)"),
            "{md}"
        );
        let at = |v: &str| md.find(&format!("`{v}`")).unwrap();
        assert!(at(&own) < heading && heading < at(&dep), "{md}");
        let json = serde_json::to_value(row(1, &own, None)).unwrap();
        assert!(json.get("crate").is_none(), "{json}");
        let back: Annotated = serde_json::from_value(json).unwrap();
        assert_eq!(back.krate, None);
        let dep_json = serde_json::to_value(row(1, &dep, Some("aes"))).unwrap();
        assert_eq!(dep_json["crate"], "aes");
        let plain = serde_json::to_value(annotations("toy", 1)).unwrap();
        assert!(plain.get("also").is_none(), "{plain}");
        let read: Annotations = serde_json::from_value(plain).unwrap();
        assert!(read.also.is_empty());
    }

    /// A variant whose secret-dependent sites differ from published's in
    /// number says so in its row; one that does not leaves the cell empty.
    #[test]
    fn an_edit_that_changes_secret_dependence_says_so() {
        use crate::report::secrets::{Secrets, Site};
        let mut r = crate::report::fixture::report();
        let sites = |n: u64| -> Vec<Site> {
            (0..n)
                .map(|offset| Site {
                    function: "f".into(),
                    offset,
                })
                .collect()
        };
        let reference = r.run.reference.clone();
        let others: Vec<String> = (r.variants.iter())
            .map(|e| e.name.clone())
            .filter(|n| *n != reference)
            .collect();
        let (changed, same) = (others[0].clone(), others[1].clone());
        for e in &mut r.variants {
            let branches = if e.name == changed { 1 } else { 0 };
            e.secrets = Some(Secrets::Measured {
                branches: sites(branches),
                indexes: sites(4),
            });
        }
        let row = |number, variant: &str| Annotated {
            number,
            function: "round".into(),
            path: "round".into(),
            location: "src/lib.rs:12".into(),
            attr: "inline".into(),
            variant: variant.into(),
            krate: None,
        };
        r.annotations = Some(Annotations {
            rows: vec![row(1, &changed), row(2, &same)],
            ..annotations("toy", 2)
        });
        let mut md = String::new();
        super::render_table(&mut md, &r);
        assert!(
            md.contains(" secret-dependent sites, where they differ |"),
            "{md}"
        );
        let line = |n: &str| md.lines().find(|l| l.starts_with(n)).unwrap().to_string();
        assert!(
            line("| 1 |").ends_with(&format!(
                "| branches 1 ({reference} 0); indexes 4 ({reference} 4) |"
            )),
            "{md}"
        );
        assert!(line("| 2 |").ends_with("|  |"), "{md}");
    }

    /// Each family's backend, timed and counted, a line each, every name
    /// escaped.
    #[test]
    fn the_backend_that_ran_is_named() {
        use crate::report::ran::{FamilyRan, ModuleCount, Observed, Ran};
        use crate::report::{Family, Operation};
        let mut r = crate::report::fixture::report();
        let family = |module: &str, count| FamilyRan {
            family: Family::Parallel,
            alg: "ecb(toy)".into(),
            dir: Operation::Encrypt,
            key_bits: 128,
            block_bytes: 8192,
            total: 100,
            modules: vec![ModuleCount {
                module: module.into(),
                count,
            }],
            by_crate: None,
        };
        r.annotations = Some(Annotations {
            backends: vec!["toy::wide".into(), "toy::narrow".into()],
            cpu_features: vec!["avx512f".into()],
            ran: Some(Ran {
                timed: Observed::Families(vec![family("toy::wide`|", 97)]),
                counted: Observed::Families(vec![family("toy::narrow", 95)]),
            }),
            ..annotations("toy", 0)
        });
        let mut md = String::new();
        super::render_table(&mut md, &r);
        assert!(
            md.contains("- parallel modes ran ``toy::wide`|`` (97% of 100 samples); callgrind counted `toy::narrow` (95% of its instructions; valgrind's CPU has no AVX-512): instruction counts are for that backend.\n"),
            "{md}"
        );
    }

    /// A smaller set the search kept that is the pick's machine code: the
    /// patch's first lines and the first screen name that set, with its own
    /// footprint (not the whole set's), and the pick's speed.
    #[test]
    fn a_kept_set_of_the_picks_code_is_the_one_said() {
        use crate::report::annotations::{Counted, Patch, Screen, Suggestion, Tried};
        let mut r = crate::report::fixture::report();
        let reference = r.run.reference.clone();
        let pick = (r.variants.iter())
            .find(|e| e.name != reference && e.overall.is_some())
            .map(|e| e.name.clone())
            .expect("a timed variant");
        let counted = |variant: &str, footprint: u64| Counted {
            variant: variant.into(),
            instructions: vec![1.0],
            footprint: Some(footprint),
        };
        r.annotations = Some(Annotations {
            patch: Some(Patch {
                file: "toy.patch".into(),
                variant: "suggested_1".into(),
                edits: Vec::new(),
                trimmed: None,
                dependency: None,
            }),
            suggestion: Some(Suggestion {
                variant: "suggested".into(),
                combines: vec![pick.clone(), "drop_1".into(), "drop_2".into()],
                against: Some(pick.clone()),
                edits: Vec::new(),
                tried: vec![Tried {
                    variant: "suggested_1".into(),
                    combines: vec![pick.clone(), "drop_1".into()],
                }],
                held: Some("suggested_1".into()),
                screen: Some(Screen {
                    cases: vec!["ecb(toy) encrypt 128-bit 8192 B".into()],
                    base: pick.clone(),
                    counts: vec![counted("suggested", 99_999), counted("suggested_1", 1_234)],
                    uncounted: Vec::new(),
                }),
                given: false,
                same_code_as: Some(pick.clone()),
            }),
            ..annotations("toy", 2)
        });
        let preamble = super::patch_preamble(&r);
        assert!(
            preamble.contains(&format!(
                "the suggested set suggested_1 ({pick}, drop_1 applied together, built whole: the same machine code as {pick})"
            )),
            "{preamble}"
        );
        assert!(
            preamble.contains("# It is `suggested_1` (built whole;")
                && preamble.contains("(1234 bytes against "),
            "{preamble}"
        );
        let mut md = String::new();
        super::render_suggestion(&mut md, &r);
        assert!(
            md.contains(&format!(
                "The search kept `suggested_1` (`{pick}`, `drop_1`). The hot path and key schedule of `suggested_1` are the same machine code as `{pick}`'s"
            )),
            "{md}"
        );
        // The same set trimmed of an edit no build reaches: the patch is
        // the trimmed set, said as the kept set less that edit, with the
        // kept set's figures, and the edit left out named.
        if let Some(p) = r.annotations.as_mut().and_then(|a| a.patch.as_mut()) {
            p.variant = "trimmed".into();
            p.trimmed = Some(crate::report::annotations::Trimmed {
                of: "suggested_1".into(),
                left_out: vec![crate::report::annotations::PatchEdit {
                    path: "<Toy as Debug>::fmt".into(),
                    location: "src/lib.rs:9".into(),
                    published: None,
                    patched: Some("inline(always)".into()),
                }],
            });
        }
        let preamble = super::patch_preamble(&r);
        assert!(
            preamble.contains(&format!(
                "the suggested set suggested_1 ({pick}, drop_1 applied together, built whole: the same machine code as {pick}) less 1 edit(s) to functions no build reaches"
            )),
            "{preamble}"
        );
        assert!(
            preamble.contains("# It is `trimmed`, which is `suggested_1` less 1 edit(s)")
                && preamble.contains("(1234 bytes against "),
            "{preamble}"
        );
        let mut md = String::new();
        super::render_patch(&mut md, &r);
        assert!(
            md.contains("**Left out of the patch:** 1 of `suggested_1`'s edits")
                && md.contains("`<Toy as Debug>::fmt` (src/lib.rs:9)"),
            "{md}"
        );
    }
}
