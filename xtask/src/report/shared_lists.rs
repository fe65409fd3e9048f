//! A variant whose hot path is the same machine code as an earlier entry's
//! (`same_code_as`) has that entry's hot path, and usually its functions:
//! the file lists them once, under the first of the group, and leaves them
//! out (`[]`, not written) where they are equal; reading fills them in
//! again. A crate's report holds a hundred such entries (every attribute
//! that changes nothing), whose lists would be most of its bytes.

use crate::report::Report;

impl Report {
    /// This report as written: an entry's `hot_path` and `functions` left
    /// empty where they equal those of the entry its `same_code_as` names.
    pub fn with_lists_shared(&self) -> Report {
        let mut out = self.clone();
        for e in out.entries_mut() {
            let (Some(head), Some(own)) = (e.same_code_as.as_ref(), e.artifact.as_mut()) else {
                continue;
            };
            let Some(first) = self
                .entries()
                .find(|h| &h.name == head)
                .and_then(|h| h.artifact.as_ref())
            else {
                continue;
            };
            if own.hot_path == first.hot_path {
                own.hot_path.clear();
            }
            if own.functions == first.functions {
                own.functions.clear();
            }
        }
        out
    }

    /// This report as read: an entry's empty `hot_path` and `functions`
    /// filled from the entry its `same_code_as` names.
    pub fn with_lists_filled(mut self) -> Report {
        let heads: Vec<_> = self
            .entries()
            .map(|e| {
                let first = e.same_code_as.as_ref().and_then(|head| {
                    self.entries()
                        .find(|h| &h.name == head)
                        .and_then(|h| h.artifact.as_ref())
                });
                first.map(|a| (a.hot_path.clone(), a.functions.clone()))
            })
            .collect();
        for (e, head) in self.entries_mut().zip(heads) {
            let (Some((hot_path, functions)), Some(own)) = (head, e.artifact.as_mut()) else {
                continue;
            };
            if own.hot_path.is_empty() {
                own.hot_path = hot_path;
            }
            if own.functions.is_empty() {
                own.functions = functions;
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::report::fixture;

    /// The fixture's `hint` is the same code as `auto`: written without
    /// its lists, read with them, and only where they are equal.
    #[test]
    fn same_code_lists_are_written_once() {
        let r = fixture::report();
        let lists = |r: &crate::report::Report, name: &str| {
            let a = r.entries().find(|e| e.name == name).unwrap();
            let a = a.artifact.as_ref().unwrap();
            (a.hot_path.len(), a.functions.len())
        };
        let (hot, functions) = lists(&r, "hint");
        assert!(hot > 0 && functions > 0);
        let shared = r.with_lists_shared();
        assert_eq!(lists(&shared, "hint"), (0, 0));
        assert_eq!(lists(&shared, "auto"), lists(&r, "auto"));
        assert_eq!(shared.with_lists_filled(), r);
        // Lists that differ from the head's stay.
        let mut other = r.clone();
        let own = other
            .variants
            .iter_mut()
            .find(|e| e.name == "hint")
            .unwrap();
        own.artifact.as_mut().unwrap().functions.pop();
        let shared = other.with_lists_shared();
        assert_eq!(lists(&shared, "hint"), (0, functions - 1));
        assert_eq!(shared.with_lists_filled(), other);
    }
}
