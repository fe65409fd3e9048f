//! A variant whose hot path is the same machine code as an earlier entry's
//! (`same_code_as`) has that entry's hot path, and usually its functions:
//! the file lists them once, under the first of the group, and leaves them
//! out (`[]`, not written) where they are equal; reading fills them in
//! again. A crate's report holds a hundred such entries (every attribute
//! that changes nothing), whose lists would be most of its bytes.
//!
//! LLVM's decisions (`inlining`) are shared the same way across every
//! entry: the first entry that has them (`published`, in a crate's report)
//! lists them all, and each other one only the calls decided otherwise and
//! those its build did not decide on (`SharedInlining`); a variant changes
//! a few calls of the hundreds.

use crate::report::Report;
use crate::select::artifact::{Artifact, Decision, Inlining, SharedInlining};
use std::collections::BTreeMap;

/// An artifact's decisions by call (callee, caller).
fn by_call(inlining: &[Inlining]) -> BTreeMap<(&str, &str), &Decision> {
    (inlining.iter())
        .map(|i| ((i.callee.as_str(), i.caller.as_str()), &i.decision))
        .collect()
}

/// `own`'s decisions as differences from `base`'s.
fn share_inlining(own: &mut Artifact, base_name: &str, base: &[Inlining]) {
    let at_base = by_call(base);
    let mine = by_call(&own.inlining);
    let gone = (at_base.keys())
        .filter(|k| !mine.contains_key(*k))
        .map(|(callee, caller)| (callee.to_string(), caller.to_string()))
        .collect();
    own.inlining
        .retain(|i| at_base.get(&(i.callee.as_str(), i.caller.as_str())) != Some(&&i.decision));
    own.inlining_shared = Some(SharedInlining {
        base: base_name.to_string(),
        gone,
    });
}

/// `own`'s decisions whole again, from `base`'s and its differences.
fn fill_inlining(own: &mut Artifact, base: &[Inlining]) {
    let Some(shared) = own.inlining_shared.take() else {
        return;
    };
    let mut calls: BTreeMap<(String, String), Decision> = (base.iter())
        .map(|i| ((i.callee.clone(), i.caller.clone()), i.decision.clone()))
        .collect();
    for call in &shared.gone {
        calls.remove(call);
    }
    for i in own.inlining.drain(..) {
        calls.insert((i.callee, i.caller), i.decision);
    }
    own.inlining = (calls.into_iter())
        .map(|((callee, caller), decision)| Inlining {
            callee,
            caller,
            decision,
        })
        .collect();
}

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
        let base = self.entries().find_map(|e| {
            let a = e.artifact.as_ref()?;
            (!a.inlining.is_empty()).then(|| (e.name.clone(), a.inlining.clone()))
        });
        if let Some((name, decisions)) = base {
            for e in out.entries_mut().filter(|e| e.name != name) {
                if let Some(own) = e.artifact.as_mut().filter(|a| !a.inlining.is_empty()) {
                    share_inlining(own, &name, &decisions);
                }
            }
        }
        if let Some(s) = out.suggested.as_mut() {
            **s = s.with_lists_shared();
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
        let bases: Vec<Option<Vec<Inlining>>> = (self.entries())
            .map(|e| {
                let shared = e.artifact.as_ref()?.inlining_shared.as_ref()?;
                (self.entries())
                    .find(|h| h.name == shared.base)
                    .and_then(|h| h.artifact.as_ref())
                    .map(|a| a.inlining.clone())
            })
            .collect();
        for (e, base) in self.entries_mut().zip(bases) {
            if let (Some(own), Some(base)) = (e.artifact.as_mut(), base) {
                fill_inlining(own, &base);
            }
        }
        if let Some(s) = self.suggested.take() {
            self.suggested = Some(Box::new(s.with_lists_filled()));
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

    /// LLVM's decisions: the first entry with them lists them all; the
    /// others only what differs (a call decided otherwise, a call added,
    /// a call gone); read back, each is its own list again, and an entry
    /// that decided nothing stays so.
    #[test]
    fn decisions_are_written_as_differences() {
        use crate::select::artifact::{Decision, Inlining};
        let call = |callee: &str, caller: &str, decision: Decision| Inlining {
            callee: callee.into(),
            caller: caller.into(),
            decision,
        };
        let mut r = fixture::report();
        let names: Vec<String> = r.entries().map(|e| e.name.clone()).collect();
        assert!(names.len() >= 3, "{names:?}");
        let base = vec![
            call("f", "a", Decision::Always),
            call(
                "g",
                "a",
                Decision::Cheap {
                    cost: 5,
                    threshold: 325,
                },
            ),
            call("h", "b", Decision::Unavailable),
        ];
        // The second: `g` left a call, `h` gone, `k` new.
        let other = vec![
            call("f", "a", Decision::Always),
            call(
                "g",
                "a",
                Decision::TooCostly {
                    cost: 900,
                    threshold: 325,
                },
            ),
            call("k", "b", Decision::Never),
        ];
        for (e, list) in r
            .entries_mut()
            .zip([base.clone(), other.clone(), base.clone()])
        {
            e.artifact.as_mut().unwrap().inlining = list;
        }
        let shared = r.with_lists_shared();
        let written = |n: usize| shared.entries().nth(n).unwrap().artifact.clone().unwrap();
        assert_eq!(written(0).inlining, base);
        assert_eq!(written(0).inlining_shared, None);
        assert_eq!(written(1).inlining, other[1..].to_vec());
        let marker = written(1).inlining_shared.unwrap();
        assert_eq!(
            (marker.base.as_str(), marker.gone),
            (names[0].as_str(), vec![("h".into(), "b".into())])
        );
        assert!(written(2).inlining.is_empty());
        assert!(written(2).inlining_shared.is_some());
        // Through the file's JSON and back.
        let json = crate::report::json::to_json(&r);
        let read: crate::report::Report = serde_json::from_str(&json).unwrap();
        assert_eq!(read.with_lists_filled(), r);
        // An entry that decided nothing is written and read so.
        let mut none = r.clone();
        none.entries_mut()
            .nth(2)
            .unwrap()
            .artifact
            .as_mut()
            .unwrap()
            .inlining
            .clear();
        assert_eq!(none.with_lists_shared().with_lists_filled(), none);
    }
}
