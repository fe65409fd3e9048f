//! What a report may hold: the bounds of every value a run can produce,
//! and [`check`], which refuses (naming the field) a report outside them,
//! so that nothing false is rendered, merged or decided from it.

use crate::env::escape::shown;
use crate::report::annotations::Patch;
use crate::report::{self, Report};

/// The longest cipher name a report may carry.
pub const MAX_NAME: usize = 32;

/// Whether `name` may name report files: 1 to [`MAX_NAME`] of `a-z`, `0-9`
/// and `_`. A name from JSON is checked before it becomes a path, so that
/// `"cipher": "../escaped"` or `"/tmp/x"` writes nothing outside the
/// reports directory.
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// The largest size a report may give an artifact (1 GiB).
pub const MAX_BYTES: u64 = 1 << 30;
/// The largest speed a report may give, in bytes per second (1 PB/s).
pub const MAX_SPEED: f64 = 1e15;
/// The smallest speed a report may give, in operations or bytes per
/// second: one in the longest batch a run may time
/// ([`crate::cli::MAX_SECONDS`]).
pub const MIN_SPEED: f64 = 1.0 / crate::cli::MAX_SECONDS;
/// The largest block a report may give (`--sizes`' bound).
pub const MAX_BLOCK: usize = *crate::cli::BLOCK_BYTES.end();
/// The clock rates a report may give a machine's counter and core, in
/// hertz: from a kHz counter to a THz clock.
pub const HZ: std::ops::RangeInclusive<f64> = 1e3..=1e12;
/// The largest ratio a report may give (a speed over another's, a bar).
pub const MAX_RATIO: f64 = 1e6;
/// The largest instruction count a report may give one operation: the
/// largest integer an `f64` holds exactly (a count is a whole number).
pub const MAX_INSTRUCTIONS: f64 = 9_007_199_254_740_992.0;

/// Whether the values of `r` are ones a run can produce, so that what is
/// rendered or decided from them is sound: the cipher name ([`valid_name`]);
/// the run's settings within what the command line accepts ([`check_run`]);
/// the machine's clocks within [`HZ`]; every entry that was built and sized
/// with its artifact and fingerprint, sizes above 0 (the chart's size axis
/// is logarithmic); speeds, ratios and counts finite and within bounds;
/// every sample, the A/A control's too, finite and positive
/// ([`check_samples`]), since the figures and verdicts are computed again
/// from them; every name it refers to an entry by one of its entries
/// ([`check_names`]) and the verdict's figures within bounds
/// ([`check_verdict`]).
pub fn check(r: &Report) -> Checked {
    if !valid_name(&r.cipher) {
        return Err(format!(
            "cipher name `{}` is not 1 to {MAX_NAME} of a-z, 0-9 and _",
            shown(&r.cipher)
        ));
    }
    if r.variants.is_empty() {
        return Err("it lists no variant, where a run lists every variant it chose".into());
    }
    check_patch(r)?;
    check_suggested(r)?;
    check_run(&r.run)?;
    if let Some(m) = &r.machine {
        clock("machine.counter_hz", m.counter_hz)?;
        if let Some(&hz) = m.core_hz.known() {
            clock("machine.core_hz", hz)?;
        }
    }
    let hz = r.machine.as_ref().map(|m| m.counter_hz);
    for e in r.entries() {
        let name = shown(&e.name);
        check_built(&name, e)?;
        if let Some(o) = &e.overall {
            ratio(&format!("`{name}`: overall"), o)?;
        }
        for s in &e.speed {
            check_speed(&name, s, hz)?;
        }
    }
    if let Some(c) = &r.control {
        ratio("control", &c.interval())?;
        for s in &c.speed {
            check_speed("control", s, hz)?;
        }
    }
    check_names(r)?;
    check_flags(r)?;
    check_verdict(&r.verdict)
}

/// A patch sits beside its report, named after it (and after the
/// dependency it edits, one of the run's `--also` crates): the only name a
/// report's link may point to.
fn check_patch(r: &Report) -> Checked {
    let Some(a) = &r.annotations else {
        return Ok(());
    };
    let Some(p) = &a.patch else {
        return Ok(());
    };
    if let Some(d) = &p.dependency
        && !(a.also.iter()).any(|x| x.krate == d.krate && x.version == d.version)
    {
        return Err(format!(
            "annotations.patch.dependency is {} {}, none of the crates annotations.also names",
            shown(&d.krate),
            shown(&d.version)
        ));
    }
    let expected = Patch::file_name(&r.cipher, p.dependency.as_ref());
    if p.file != expected {
        return Err(format!(
            "annotations.patch.file is `{}`, not `{expected}`",
            shown(&p.file),
        ));
    }
    Ok(())
}

/// The suggested set's run (`compare --crate`): a report of the same
/// cipher, valid by the same checks, holding no run of its own, beside a
/// record of the suggestion whose sets it timed.
fn check_suggested(r: &Report) -> Checked {
    let record = r.annotations.as_ref().and_then(|a| a.suggestion.as_ref());
    if let Some(same) = record.and_then(|s| s.same_code_as.as_deref()) {
        // Held as the first run's entry of the same machine code: no run
        // of its own, and that entry in this one.
        if r.suggested.is_some() {
            return Err(
                "a suggested set held as the same machine code has a run of its own".into(),
            );
        }
        if record.and_then(|s| s.held.as_ref()).is_none() {
            return Err("a suggested set of the same machine code as an entry did not hold".into());
        }
        if !r.variants.iter().any(|e| e.name == same) {
            return Err(format!(
                "the suggested set is the same machine code as `{}`, which is not in the report",
                shown(same)
            ));
        }
    }
    let Some(s) = r.suggested.as_deref() else {
        return Ok(());
    };
    if s.suggested.is_some() {
        return Err("the suggested set's run holds another such run".into());
    }
    if s.cipher != r.cipher {
        return Err(format!(
            "the suggested set's run is of `{}`, not `{}`",
            shown(&s.cipher),
            r.cipher
        ));
    }
    check(s).map_err(|e| format!("the suggested set's run: {e}"))?;
    let Some(record) = r.annotations.as_ref().and_then(|a| a.suggestion.as_ref()) else {
        return Err("a suggested set's run without annotations.suggestion".into());
    };
    let timed = |n: &str| s.variants.iter().any(|e| e.name == n);
    // Screened by instructions, a set is counted (or said uncounted) and
    // timed only if it passed; without a screen, every set is timed.
    let known = |n: &str| match &record.screen {
        Some(screen) => {
            screen.count(n).is_some() || screen.uncounted.iter().any(|u| u.variant == n)
        }
        None => timed(n),
    };
    let sets = std::iter::once(&record.variant).chain(record.tried.iter().map(|t| &t.variant));
    for name in sets {
        if !known(name) {
            return Err(format!(
                "annotations.suggestion names `{}`, which neither its run nor its screen lists",
                shown(name)
            ));
        }
    }
    if let Some(held) = &record.held
        && !timed(held)
    {
        return Err(format!(
            "annotations.suggestion holds `{}`, which its run does not list",
            shown(held)
        ));
    }
    Ok(())
}

/// A flag grid's sets are distinct, and each entry's flag set is one of
/// them (none without a grid).
fn check_flags(r: &Report) -> Checked {
    let names: Vec<String> = r.flag_sets.iter().map(|s| s.name()).collect();
    if let Some(i) = (1..names.len()).find(|&i| names[..i].contains(&names[i])) {
        return Err(format!("flag_sets[{i}] is `{}` again", shown(&names[i])));
    }
    for e in r.entries() {
        if let Some(f) = &e.flags
            && !names.contains(f)
        {
            return Err(format!(
                "`{}`: flags is `{}`, not one of the report's flag sets",
                shown(&e.name),
                shown(f)
            ));
        }
    }
    Ok(())
}

/// Every name the report refers to an entry by is an entry of it: the
/// reference variant, what the A/A control is a copy of, each
/// `same_code_as`, and the verdict's pick, Pareto set and each link's
/// candidate and what it was measured against.
fn check_names(r: &Report) -> Checked {
    let named = |what: String, name: &str| -> Checked {
        if r.entries().any(|e| e.name == name) {
            Ok(())
        } else {
            Err(format!(
                "{what} is `{}`, not an entry of the report",
                shown(name)
            ))
        }
    };
    named("run.reference_variant".into(), &r.run.reference)?;
    if let Some(c) = &r.control {
        named("control.of".into(), &c.of)?;
    }
    for (i, e) in r.entries().enumerate() {
        if let Some(same) = &e.same_code_as {
            named(
                format!("`{}`: same_code_as (entry {i})", shown(&e.name)),
                same,
            )?;
        }
    }
    let v = &r.verdict;
    if let Some(p) = &v.pick {
        named("verdict.pick".into(), p)?;
    }
    for (i, p) in v.pareto.iter().enumerate() {
        named(format!("verdict.pareto[{i}]"), p)?;
    }
    for (i, l) in v.chain.iter().enumerate() {
        named(format!("verdict.chain[{i}].candidate"), &l.candidate)?;
        if let Some(a) = &l.against {
            named(format!("verdict.chain[{i}].against"), a)?;
        }
    }
    Ok(())
}

/// The verdict's figures as the report stores them (rendered as they are,
/// a chain of schema 3 on): its bars and gains ratios within bounds, each
/// link's size and size change those of footprints.
fn check_verdict(v: &crate::decide::verdict::Verdict) -> Checked {
    bar("verdict.bar", v.bar)?;
    for (i, l) in v.chain.iter().enumerate() {
        let at = format!("verdict.chain[{i}]");
        if l.size > MAX_BYTES {
            return Err(format!("{at}.size is {}, more than {MAX_BYTES}", l.size));
        }
        let change = l.size_change;
        if !(change.is_finite() && change > -1.0 && change <= MAX_BYTES as f64) {
            return Err(format!(
                "{at}.size_change is {}, not a change of a footprint",
                figure(change)
            ));
        }
        if let Some(g) = &l.gain {
            ratio(&format!("{at}.gain"), g)?;
        }
        bar(&format!("{at}.bar"), l.bar)?;
    }
    Ok(())
}

/// A bar: a ratio, or 0 where there is none.
fn bar(what: &str, v: f64) -> Checked {
    if v.is_finite() && (0.0..=MAX_RATIO).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not from 0 to {}",
            figure(v),
            figure(MAX_RATIO)
        ))
    }
}

/// What [`check`] and its parts return: the first value out of bounds, in
/// words.
type Checked = std::result::Result<(), String>;

/// The run's settings, each within what the command line accepts for it:
/// `threshold` and `size_cost` as [`crate::cli::percent`] gives them,
/// `rounds` in [`crate::cli::ROUNDS`], `budget_seconds` as
/// [`crate::cli::seconds`] takes it, `looks` at most the racing rule's
/// [`looks::MAX_LOOKS`](crate::decide::looks::MAX_LOOKS), `processes` at most [`looks::MAX_PROCESSES`](crate::decide::looks::MAX_PROCESSES) (0 when
/// nothing was timed); each process it records likewise.
fn check_run(run: &report::Run) -> Checked {
    use crate::cli;
    use crate::decide::looks;
    percent("run.threshold", run.threshold)?;
    percent("run.size_cost", run.size_cost)?;
    fraction("run.quiet_share", run.quiet_share)?;
    fraction("run.quiet.threshold", run.quiet.threshold)?;
    positive("run.batch_seconds", run.batch_seconds, cli::MAX_SECONDS)?;
    within("run.rounds", run.rounds, &cli::ROUNDS)?;
    within("run.looks", run.looks, &(1..=looks::MAX_LOOKS))?;
    within("run.processes", run.processes, &(0..=looks::MAX_PROCESSES))?;
    if let Some(b) = run.budget_seconds
        && !cli::is_seconds(b)
    {
        return Err(format!(
            "run.budget_seconds is {}, not above 0 and at most {}",
            figure(b),
            cli::MAX_SECONDS
        ));
    }
    if run.spent.len() > looks::MAX_PROCESSES {
        return Err(format!(
            "run.spent lists {} processes, more than {}",
            run.spent.len(),
            looks::MAX_PROCESSES
        ));
    }
    for (i, p) in run.spent.iter().enumerate() {
        within(
            &format!("run.spent[{i}].look"),
            p.look,
            &(0..=looks::MAX_LOOKS - 1),
        )?;
        within(&format!("run.spent[{i}].rounds"), p.rounds, &cli::ROUNDS)?;
        not_negative(&format!("run.spent[{i}].seconds"), p.seconds)?;
    }
    Ok(())
}

fn fraction(what: &str, v: f64) -> Checked {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not a fraction from 0 to 1",
            figure(v)
        ))
    }
}

/// A fraction as [`crate::cli::percent`] gives it.
fn percent(what: &str, v: f64) -> Checked {
    let p = &crate::cli::PERCENT;
    if crate::cli::is_percent_fraction(v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not a fraction from {} to {} (a percentage from {} to {})",
            figure(v),
            p.start() / 100.0,
            p.end() / 100.0,
            p.start(),
            p.end()
        ))
    }
}

fn within(what: &str, v: usize, range: &std::ops::RangeInclusive<usize>) -> Checked {
    if range.contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {v}, not from {} to {}",
            range.start(),
            range.end()
        ))
    }
}

fn clock(what: &str, v: f64) -> Checked {
    if HZ.contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not from {} to {} Hz",
            figure(v),
            HZ.start(),
            HZ.end()
        ))
    }
}

fn positive(what: &str, v: f64, max: f64) -> Checked {
    if v.is_finite() && v > 0.0 && v <= max {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not above 0 and at most {}",
            figure(v),
            figure(max)
        ))
    }
}

fn not_negative(what: &str, v: f64) -> Checked {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(format!("{what} is {}, not a number from 0 up", figure(v)))
    }
}

fn ratio(what: &str, q: &bench_harness::stats::Ratio) -> Checked {
    for v in [q.ratio, q.low, q.high] {
        positive(what, v, MAX_RATIO)?;
    }
    Ok(())
}

/// A number as a message shows it: in exponent form when very large or
/// small, so that a reason stays short.
fn figure(v: f64) -> String {
    let a = v.abs();
    if v.is_finite() && a != 0.0 && !(1e-6..1e9).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// An entry that was built and sized (`ok` or `screened`) has its artifact,
/// with a fingerprint ([`check_fingerprint`]); the file it was measured
/// from, where recorded, is that one; every artifact's sizes within bounds
/// ([`check_artifact`]).
fn check_built(name: &str, e: &report::Entry) -> Checked {
    use report::Status;
    let sized = matches!(e.status, Status::Measured | Status::Screened);
    let Some(a) = &e.artifact else {
        return match sized {
            true => Err(format!(
                "`{name}`: {} but its artifact is missing",
                e.status
            )),
            false => Ok(()),
        };
    };
    check_fingerprint(&format!("`{name}`: artifact.fingerprint"), &a.fingerprint)?;
    if let Some(m) = &e.measured_fingerprint {
        check_fingerprint(&format!("`{name}`: measured_fingerprint"), m)?;
        if e.status == Status::Measured && *m != a.fingerprint {
            return Err(format!(
                "`{name}`: measured_fingerprint {} is not its artifact's {}",
                shown(m),
                shown(&a.fingerprint)
            ));
        }
    }
    check_artifact(name, a)
}

/// A fingerprint as `bench_harness::so::fingerprint` writes it: the file's
/// length, `:`, and 16 lowercase hex digits of its hash.
fn check_fingerprint(what: &str, f: &str) -> Checked {
    let well_formed = f.split_once(':').is_some_and(|(len, hash)| {
        !len.is_empty()
            && len.len() <= 20
            && len.bytes().all(|b| b.is_ascii_digit())
            && hash.len() == 16
            && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    });
    if well_formed {
        Ok(())
    } else {
        Err(format!(
            "{what} is `{}`, not a file length and a 16-digit hash (LEN:HASH)",
            shown(f)
        ))
    }
}

/// An artifact's sizes: the `.so`, `.text` and footprint above 0 (the
/// chart's size axis is logarithmic), every section, the hot path, the key
/// schedule and each function at most [`MAX_BYTES`].
fn check_artifact(name: &str, a: &crate::select::artifact::Artifact) -> Checked {
    for (what, v) in [
        (".so bytes", a.so_bytes),
        (".text bytes", a.text_bytes),
        ("footprint bytes", a.footprint_bytes),
    ] {
        if v == 0 || v > MAX_BYTES {
            return Err(format!(
                "`{name}`: {what} are {v}, not from 1 to {MAX_BYTES}"
            ));
        }
    }
    let optional = [
        ("hot path bytes", a.hot_path_bytes),
        ("key schedule bytes", a.key_schedule_bytes),
    ];
    let library = a.library.as_ref();
    let library_functions = (library.into_iter())
        .flat_map(|l| l.hot_path.iter().chain(&l.key_schedule))
        .map(|f| ("bytes of a library's function", Some(f.bytes)));
    let own = (library.into_iter()).flat_map(|l| {
        [
            ("its artifact's own hot path bytes", l.own_hot_path_bytes),
            (
                "its artifact's own key schedule bytes",
                l.own_key_schedule_bytes,
            ),
        ]
    });
    let functions = (a.hot_path.iter().chain(&a.functions))
        .map(|f| ("bytes of a function", Some(f.bytes)))
        .chain(library_functions)
        .chain(own);
    for (what, v) in [
        (".rodata bytes", Some(a.rodata_bytes)),
        (".data bytes", Some(a.data_bytes)),
        (".rlib bytes", Some(a.rlib_bytes)),
    ]
    .into_iter()
    .chain(optional)
    .chain(functions)
    {
        if let Some(v) = v
            && v > MAX_BYTES
        {
            return Err(format!("`{name}`: {what} are {v}, more than {MAX_BYTES}"));
        }
    }
    check_library(name, a)
}

/// A library peer's hot path and key schedule are what its parts add up
/// to (`LibraryCode::hot_path_bytes`), the figure recomputed from them.
fn check_library(name: &str, a: &crate::select::artifact::Artifact) -> Checked {
    let Some(l) = &a.library else { return Ok(()) };
    for (what, recorded, parts) in [
        ("hot path", a.hot_path_bytes, l.hot_path_bytes()),
        ("key schedule", a.key_schedule_bytes, l.key_schedule_bytes()),
    ] {
        if recorded != parts {
            return Err(format!(
                "`{name}`: its {what} is {recorded:?} bytes, not the {parts:?} its artifact's and its library's functions add up to"
            ));
        }
    }
    Ok(())
}

/// One speed entry: its block within bounds (0 for key setup), its
/// instruction count a whole number ([`check_count`]), and either timed
/// figures and samples within bounds ([`check_samples`]; `hz` the
/// machine's counter, `None` when nothing was timed) or, untimed, an
/// instruction count.
fn check_speed(name: &str, s: &crate::report::Speed, hz: Option<f64>) -> Checked {
    let case = format!("`{name}` at {} bytes", s.block_bytes);
    // Key setup has no block; every other case has one.
    let blocks = if s.dir == crate::report::Operation::Setkey {
        0..=0
    } else {
        1..=MAX_BLOCK
    };
    if !blocks.contains(&s.block_bytes) {
        return Err(format!(
            "`{name}`: a {} case of {} bytes, not from {} to {}",
            s.dir.name(),
            s.block_bytes,
            blocks.start(),
            blocks.end()
        ));
    }
    if let Some(i) = s.instructions {
        check_count(&format!("{case}: instructions"), i)?;
    }
    if s.rounds == 0 && s.samples.is_empty() {
        // Not timed: a baseline's entry that holds only its instruction
        // count.
        return match s.instructions {
            Some(i) if i > 0.0 => Ok(()),
            Some(i) => Err(format!(
                "{case}: instructions is {}, and it was not timed: nothing measured",
                figure(i)
            )),
            None => Err(format!("{case}: neither timed nor counted")),
        };
    }
    let Some(hz) = hz else {
        return Err(format!(
            "{case}: timed, but no machine (its counter_hz) it was timed on"
        ));
    };
    speed(&format!("{case}: ops_per_sec"), s.ops_per_sec)?;
    if let Some(b) = s.bytes_per_sec {
        speed(&format!("{case}: bytes_per_sec"), b)?;
    }
    ticks(&format!("{case}: ticks_per_op"), s.ticks_per_op, hz)?;
    if let Some(t) = s.ticks_per_byte {
        ticks(&format!("{case}: ticks_per_byte"), t, hz)?;
    }
    not_negative(&format!("{case}: spread"), s.spread)?;
    if let Some(q) = &s.ratio {
        ratio(&format!("{case}: ratio"), q)?;
    }
    check_samples(&case, s, hz)
}

/// A speed: from [`MIN_SPEED`] to [`MAX_SPEED`].
fn speed(what: &str, v: f64) -> Checked {
    if (MIN_SPEED..=MAX_SPEED).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not from {} to {}",
            figure(v),
            figure(MIN_SPEED),
            figure(MAX_SPEED)
        ))
    }
}

/// Counter ticks (at `hz`) of one operation or byte: finite and above 0, at
/// a speed of at most [`MAX_SPEED`] and within one batch of at most
/// [`crate::cli::MAX_SECONDS`].
fn ticks(what: &str, t: f64, hz: f64) -> Checked {
    let slowest = hz * crate::cli::MAX_SECONDS;
    if t.is_finite() && t > 0.0 && t <= slowest && hz / t <= MAX_SPEED {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not from {} to {} at this counter",
            figure(t),
            figure(hz / MAX_SPEED),
            figure(slowest)
        ))
    }
}

/// An instruction count: a whole number from 0 to [`MAX_INSTRUCTIONS`].
fn check_count(what: &str, n: f64) -> Checked {
    if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= MAX_INSTRUCTIONS {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not a whole number from 0 to {}",
            figure(n),
            figure(MAX_INSTRUCTIONS)
        ))
    }
}

/// The samples a timed entry's figures (and a merge's verdict) are computed
/// from: each one's ticks per operation as [`ticks`] bounds them (`hz` the
/// machine's counter), each from a process below
/// [`looks::MAX_PROCESSES`](crate::decide::looks::MAX_PROCESSES). `case` names
/// the entry and its case.
fn check_samples(case: &str, s: &crate::report::Speed, hz: f64) -> Checked {
    use crate::decide::looks::MAX_PROCESSES;
    for (i, x) in s.samples.iter().enumerate() {
        ticks(
            &format!("{case}: samples[{i}].ticks_per_op"),
            x.ticks_per_op,
            hz,
        )?;
        if x.process >= MAX_PROCESSES {
            return Err(format!(
                "{case}: samples[{i}].process is {}, not below {MAX_PROCESSES}",
                x.process
            ));
        }
    }
    Ok(())
}
