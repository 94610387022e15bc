//! The hash maps and sets of the checker, the model and the index reader.
//!
//! Keys are short (names, dotted paths, small integers) and hashed millions of times per run:
//! std's SipHash took a tenth of `check`'s instructions on a 1 M-line project. foldhash is
//! several times faster on such keys. Its `RandomState` is seeded per process, so keys that come
//! from the project's files cannot be crafted to collide, and iteration order is no more
//! stable than with std's maps (nothing may depend on it).

/// The hasher of [`HashMap`] and [`HashSet`].
pub type RandomState = foldhash::fast::RandomState;

/// `std::collections::HashMap` with a fast, per-process seeded hash. Build it with
/// `HashMap::default()` or [`map_with_capacity`].
pub type HashMap<K, V> = std::collections::HashMap<K, V, RandomState>;

/// `std::collections::HashSet` with a fast, per-process seeded hash.
pub type HashSet<T> = std::collections::HashSet<T, RandomState>;

/// An empty map with room for `n` entries.
pub fn map_with_capacity<K, V>(n: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(n, RandomState::default())
}

/// An empty set with room for `n` entries.
pub fn set_with_capacity<T>(n: usize) -> HashSet<T> {
    HashSet::with_capacity_and_hasher(n, RandomState::default())
}

/// A 32-bit key for a string, the same for the whole process (a per-process seed).
pub fn key32(s: &str) -> u32 {
    use std::hash::BuildHasher;
    static STATE: std::sync::OnceLock<RandomState> = std::sync::OnceLock::new();
    let x = STATE.get_or_init(RandomState::default).hash_one(s);
    (x ^ (x >> 32)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_and_sets_behave_like_std() {
        let mut m: HashMap<&str, u32> = map_with_capacity(4);
        m.insert("torch", 1);
        *m.entry("torch").or_default() += 1;
        assert_eq!(m.get("torch"), Some(&2));
        let s: HashSet<u32> = (0..100).chain(0..100).collect();
        assert_eq!(s.len(), 100);
        let mut t = set_with_capacity(1);
        assert!(t.insert("a") && !t.insert("a"));
    }
}
