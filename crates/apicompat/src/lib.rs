//! The indexes built into the `apicompat` binary, for tests and embedders.

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

pub use embedded::EMBEDDED;

/// The catalog of embedded indexes only (no user cache).
pub fn embedded_catalog() -> apicompat_index::Catalog {
    apicompat_index::Catalog::open(EMBEDDED, None)
}
