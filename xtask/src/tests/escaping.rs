//! Text from a report's JSON reaches the markdown only escaped (issue 29,
//! case 5): a step, a reason or a screened entry's evidence holding HTML
//! and a link comes out as text, in the report and in the index.

use crate::decide::verdict::Conclusion;
use crate::render::markdown;
use crate::report::Status;
use crate::tests::synthetic;

/// An image that runs script, and a link that does.
const HOSTILE: &str = "<img src=x onerror=alert(3)> [c](javascript:alert(2))";

/// The lines of `md` that hold [`HOSTILE`]'s HTML or link live.
fn live(md: &str) -> Vec<&str> {
    (md.lines())
        .filter(|l| l.contains("<img") || l.contains("[c](javascript:"))
        .collect()
}

/// Case 5: steps, reasons and a screened entry's evidence in cast6.md.
#[test]
fn prose_from_the_json_is_escaped_in_the_report() {
    let mut r = synthetic::committed("cast6");
    r.verdict.steps.insert(0, HOSTILE.to_string());
    r.verdict.steps.push(format!("`never` {HOSTILE}"));
    r.verdict.status = Conclusion::Inconclusive;
    r.verdict.reasons.push(HOSTILE.to_string());
    r.run.notes.push(HOSTILE.to_string());
    let screened = (r.variants.iter_mut())
        .find(|e| e.status == Status::Screened)
        .expect("cast6 has a screened variant");
    screened.reason = Some(format!("screened out: `auto` {HOSTILE}"));
    let md = markdown::render(&r);
    assert_eq!(live(&md), Vec::<&str>::new());
    // The evidence is kept, as text, its code as code.
    assert!(
        md.contains(
            "screened out: `auto` &lt;img src=x onerror=alert(3)&gt; \\[c\\](javascript:alert(2))"
        ),
        "{md}"
    );
}

/// Case 5: an inconclusive verdict's reasons in the index.
#[test]
fn reasons_from_the_json_are_escaped_in_the_index() {
    let mut r = synthetic::committed("cast6");
    r.verdict.status = Conclusion::Inconclusive;
    r.verdict.reasons = vec![HOSTILE.to_string()];
    let index = markdown::render_index(&[r]);
    assert_eq!(live(&index), Vec::<&str>::new());
    assert!(index.contains("**inconclusive**"), "{index}");
}

/// The steps and reasons shown are the rule's own words over the stored
/// chain: those of the committed reports are what the runs wrote.
#[test]
fn prose_is_regenerated_as_the_run_wrote_it() {
    for cipher in ["aes", "blowfish", "cast5", "cast6", "crc32c"] {
        let r = synthetic::committed(cipher);
        let (steps, reasons, _) = r.prose();
        assert_eq!(steps, r.verdict.steps, "{cipher}");
        assert_eq!(reasons, r.verdict.reasons, "{cipher}");
    }
}
