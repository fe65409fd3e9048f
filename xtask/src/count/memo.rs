//! What valgrind said of an artifact, kept for the rest of the process: the
//! same file (its bytes) in the same cases is counted, or scanned for
//! secrets, once. `compare --crate`'s suggested set has a run of its own
//! over `published` and the first run's pick, which the first run already
//! counted and scanned. Only what was measured is kept; a failure is asked
//! again.

use serde::Serialize;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::Mutex;

/// An artifact's bytes and the cases it was run in, hashed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    len: u64,
    bytes: u64,
    cases: u64,
}

impl Key {
    /// The key of the file `so` in `cases`; `None` when it cannot be read.
    pub fn of(so: &Path, cases: &impl Serialize) -> Option<Key> {
        let bytes = std::fs::read(so).ok()?;
        let cases = serde_json::to_vec(cases).ok()?;
        let hash = |b: &[u8]| {
            let mut h = DefaultHasher::new();
            b.hash(&mut h);
            h.finish()
        };
        Some(Key {
            len: bytes.len() as u64,
            bytes: hash(&bytes),
            cases: hash(&cases),
        })
    }
}

/// Results by key, for the process's life.
pub struct Memo<T> {
    kept: Mutex<Option<HashMap<Key, T>>>,
}

impl<T: Clone> Memo<T> {
    pub const fn new() -> Self {
        Memo {
            kept: Mutex::new(None),
        }
    }

    pub fn get(&self, key: &Key) -> Option<T> {
        let kept = self.kept.lock().ok()?;
        kept.as_ref()?.get(key).cloned()
    }

    pub fn put(&self, key: Key, value: T) {
        if let Ok(mut kept) = self.kept.lock() {
            kept.get_or_insert_with(HashMap::new).insert(key, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same bytes in the same cases are one key, wherever the file is;
    /// other bytes or other cases are another.
    #[test]
    fn a_file_is_known_by_its_bytes_and_cases() {
        let dir = tempfile::TempDir::new().unwrap();
        let (a, b, c) = (
            dir.path().join("a.so"),
            dir.path().join("b.so"),
            dir.path().join("c.so"),
        );
        std::fs::write(&a, b"same").unwrap();
        std::fs::write(&b, b"same").unwrap();
        std::fs::write(&c, b"other").unwrap();
        let key = |p: &Path, cases: &[u32]| Key::of(p, &cases).unwrap();
        assert_eq!(key(&a, &[1]), key(&b, &[1]));
        assert_ne!(key(&a, &[1]), key(&c, &[1]));
        assert_ne!(key(&a, &[1]), key(&a, &[2]));
        assert!(Key::of(&dir.path().join("none.so"), &[1]).is_none());
        let memo: Memo<u32> = Memo::new();
        assert_eq!(memo.get(&key(&a, &[1])), None);
        memo.put(key(&a, &[1]), 7);
        assert_eq!(memo.get(&key(&b, &[1])), Some(7));
        assert_eq!(memo.get(&key(&c, &[1])), None);
    }
}
