//! The report's table of the crate's attributes (`report::annotations`):
//! each attribute compiled on this target, with the variant that removed
//! it, when that variant was built.

use crate::intake::annotations::Edit;
use crate::intake::annotations::{Annotation, Cfg, Scan};
use crate::intake::axes::{Change, Variant};
use crate::intake::fetch::Package;
use crate::report::annotations::{Added, AlsoCrate, Annotated, Annotations, PatchEdit};

/// The rows: `numbered` (index in the scan, annotation) in order, each with
/// its `drop_N` variant (built or not: `--variants` may leave it out), and
/// the `add_K` variants among `built`.
pub fn table(
    scan: &Scan,
    numbered: &[(usize, &Annotation)],
    built: &[Variant],
    package: &Package,
    ty: &str,
    backends: Vec<String>,
) -> Annotations {
    let rows = (numbered.iter().enumerate())
        .map(|(n, (_, a))| Annotated {
            number: n + 1,
            function: a.function.clone().unwrap_or_default(),
            path: a.path.clone(),
            location: a.location(),
            attr: a.attr.meta().to_string(),
            variant: crate::intake::axes::drop_name(n),
            krate: None,
        })
        .collect();
    let added = (built.iter())
        .filter_map(|v| match v.change {
            Change::Always(f) => Some((v, &scan.functions[f])),
            _ => None,
        })
        .enumerate()
        .map(|(k, (v, f))| Added {
            number: k + 1,
            function: f.name.clone(),
            path: f.path.clone(),
            location: format!("{}:{}", f.file.display(), f.line),
            attr: (f.annotations.iter())
                .map(|&i| scan.annotations[i].attr.meta().to_string())
                .next(),
            variant: v.name.clone(),
        })
        .collect();
    Annotations {
        added,
        backends,
        cpu_features: crate::intake::modules::cpu_features(),
        ran: None,
        patch: None,
        suggestion: None,
        also: Vec::new(),
        krate: package.name.clone(),
        version: package.version.clone(),
        ty: ty.to_string(),
        written: scan.annotations.len(),
        rows,
    }
}

/// The rows of an `--also` dependency (`package`, its variants' names
/// starting `prefix`), scanned as `scan` for `cfg`, numbered as its
/// `PREFIX_drop_N` variants are, and its record; to follow the crate's.
pub fn dependency(
    scan: &Scan,
    cfg: &Cfg,
    package: &Package,
    prefix: &str,
) -> (Vec<Annotated>, AlsoCrate) {
    let rows = (crate::intake::axes::numbered(scan, cfg)
        .into_iter()
        .enumerate())
    .map(|(n, (_, a))| Annotated {
        number: n + 1,
        function: a.function.clone().unwrap_or_default(),
        path: a.path.clone(),
        location: a.location(),
        attr: a.attr.meta().to_string(),
        variant: format!("{prefix}_{}", crate::intake::axes::drop_name(n)),
        krate: Some(package.name.clone()),
    })
    .collect();
    let record = AlsoCrate {
        krate: package.name.clone(),
        version: package.version.clone(),
        written: scan.annotations.len(),
    };
    (rows, record)
}

/// The edits of a patch, as its table lists them: each function, where,
/// and its attribute as published and with the patch.
pub fn patch_edits(scan: &Scan, edits: &[Edit<'_>]) -> Vec<PatchEdit> {
    (edits.iter())
        .map(|e| match e {
            Edit::Remove(a) => PatchEdit {
                path: a.path.clone(),
                location: a.location(),
                published: Some(a.attr.meta().to_string()),
                patched: None,
            },
            Edit::Set(a, attr) => PatchEdit {
                path: a.path.clone(),
                location: a.location(),
                published: Some(a.attr.meta().to_string()),
                patched: Some(attr.meta().to_string()),
            },
            Edit::Add(f, attr, _) => PatchEdit {
                path: f.path.clone(),
                location: format!("{}:{}", f.file.display(), f.line),
                published: (f.annotations.iter())
                    .map(|&i| scan.annotations[i].attr.meta().to_string())
                    .next(),
                patched: Some(attr.meta().to_string()),
            },
        })
        .collect()
}
