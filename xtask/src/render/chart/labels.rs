//! Where the chart's labels go: each point's number and role placed in
//! pixels, at the first of a few spots around it that covers no point and
//! no label placed before it, so that crowded points (every variant at one
//! speed) stay readable.

/// A box in pixels, `(left, top, right, bottom)`.
pub type Rect = (i32, i32, i32, i32);

/// Whether two boxes share a pixel.
pub fn overlaps(a: Rect, b: Rect) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Pixels a label of `chars` characters takes (13-pixel sans-serif).
pub fn text_rect(at: (i32, i32), offset: (i32, i32), chars: usize) -> Rect {
    let (x, y) = (at.0 + offset.0, at.1 + offset.1);
    (x, y, x + 8 * chars as i32, y + 13)
}

/// Each point's mark as a box: its circle or triangle, the pick's ring.
pub fn marks(at: &[Option<(i32, i32)>], ringed: Option<usize>) -> Vec<Rect> {
    (at.iter().enumerate())
        .filter_map(|(i, p)| {
            let (x, y) = (*p)?;
            let r = if ringed == Some(i) { 12 } else { 7 };
            Some((x - r, y - r, x + r, y + r))
        })
        .collect()
}

/// The first of `spots` (offsets from `at`) where a label of `chars`
/// characters covers none of `taken`; `None` where all are taken.
fn free(at: (i32, i32), chars: usize, spots: &[(i32, i32)], taken: &[Rect]) -> Option<(i32, i32)> {
    spots.iter().copied().find(|o| {
        let b = text_rect(at, *o, chars);
        !taken.iter().any(|&m| overlaps(b, m))
    })
}

/// [`free`], or the first spot where all are taken.
fn place(at: (i32, i32), chars: usize, spots: &[(i32, i32)], taken: &[Rect]) -> (i32, i32) {
    free(at, chars, spots, taken).unwrap_or(spots[0])
}

/// Where each point's role (`pick`, `reference`, `None`: none) is written:
/// under it, or above, right or left of it where that would cover a point
/// or another role; above it first where the point is `low` in its panel.
pub fn role_offsets(
    roles: &[Option<&str>],
    low: &[bool],
    at: &[Option<(i32, i32)>],
    marks: &[Rect],
) -> Vec<Option<(i32, i32)>> {
    let mut taken: Vec<Rect> = marks.to_vec();
    (roles.iter().zip(low).zip(at))
        .map(|((role, &low), px)| {
            let (role, px) = ((*role)?, (*px)?);
            let w = 8 * role.len() as i32;
            let below = (-12, 14);
            let above = (-12, -32);
            let mut spots = vec![below, above, (16, -6), (-16 - w, -6), (-12, 28), (-12, -46)];
            if low {
                spots.swap(0, 1);
            }
            let o = place(px, role.len(), &spots, &taken);
            taken.push(text_rect(px, o, role.len()));
            Some(o)
        })
        .collect()
}

/// Each number's offset from its point, placed in pixels: the first of a
/// few spots around the point (right and left above it, then below, then
/// further out, then a ring further still) that covers no point, no role label and no number placed
/// before it; `None` (no number drawn) where all are taken, as in a flag
/// grid's clusters of some hundred points. The points `first` marks (the
/// front, the pick, the peers) are placed before the others. `at` is each
/// point's pixel (`None`: not drawn), `marks` the points' boxes, `roles`
/// the role labels', `ringed` the pick's point (a larger ring).
pub fn label_offsets(
    at: &[Option<(i32, i32)>],
    marks: &[Rect],
    roles: &[Rect],
    ringed: Option<usize>,
    first: &[bool],
) -> Vec<Option<(i32, i32)>> {
    let mut taken: Vec<Rect> = marks.iter().chain(roles).copied().collect();
    let mut order: Vec<usize> = (0..at.len()).collect();
    order.sort_by_key(|&i| !first.get(i).copied().unwrap_or(false));
    let mut out = vec![None; at.len()];
    for i in order {
        out[i] = at[i].and_then(|p| {
            let chars = (i + 1).to_string().len();
            let w = 8 * chars as i32;
            let clear = if ringed == Some(i) { 13 } else { 8 };
            let spots = [
                (clear, -20),
                (-clear - w, -20),
                (clear, 4),
                (-clear - w, 4),
                (-w / 2, -34),
                (-w / 2, 18),
                (clear + 10, -30),
                (-clear - w - 10, -30),
                (clear + 10, 16),
                (-clear - w - 10, 16),
                (-w / 2, -48),
                (-w / 2, 32),
                (clear + 22, -8),
                (-clear - w - 22, -8),
                (clear + 20, -42),
                (-clear - w - 20, -42),
                (clear + 20, 28),
                (-clear - w - 20, 28),
            ];
            let o = free(p, chars, &spots, &taken)?;
            taken.push(text_rect(p, o, chars));
            Some(o)
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{label_offsets, marks, overlaps, text_rect};

    /// Six points in a row a few pixels apart (CBC's panel, where every
    /// variant runs at one speed): no number covers another or a point.
    #[test]
    fn numbers_of_crowded_points_do_not_overlap() {
        let at: Vec<Option<(i32, i32)>> = (0..6).map(|i| Some((100 + 9 * i, 50))).collect();
        let ringed = Some(3);
        let marks = marks(&at, ringed);
        let offsets = label_offsets(&at, &marks, &[], ringed, &[]);
        let boxes: Vec<_> = (at.iter().zip(&offsets).enumerate())
            .map(|(i, (p, o))| {
                text_rect(
                    p.unwrap(),
                    o.expect("room for six"),
                    (i + 1).to_string().len(),
                )
            })
            .collect();
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(!overlaps(*a, *b), "{boxes:?}");
            }
            assert!(marks.iter().all(|m| !overlaps(*a, *m)), "{i}: {boxes:?}");
        }
    }

    /// A flag grid's cluster, a hundred points within a few pixels: the
    /// numbers that are drawn cover no other number and no point, and
    /// those marked first (the front, the pick, the peers) are drawn.
    #[test]
    fn a_crowd_leaves_numbers_out_rather_than_overlap() {
        let at: Vec<Option<(i32, i32)>> = (0..100)
            .map(|i| Some((200 + i % 10, 100 + i / 10)))
            .collect();
        let first: Vec<bool> = (0..100).map(|i| i == 57 || i == 90).collect();
        let marks = marks(&at, None);
        let offsets = label_offsets(&at, &marks, &[], None, &first);
        let boxes: Vec<_> = (at.iter().zip(&offsets).enumerate())
            .filter_map(|(i, (p, o))| Some(text_rect((*p)?, (*o)?, (i + 1).to_string().len())))
            .collect();
        assert!(
            offsets[57].is_some() && offsets[90].is_some(),
            "{offsets:?}"
        );
        assert!(boxes.len() < 100, "every number drawn in a crowd");
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(!overlaps(*a, *b), "{boxes:?}");
            }
            assert!(marks.iter().all(|m| !overlaps(*a, *m)), "{i}: {boxes:?}");
        }
    }
}
