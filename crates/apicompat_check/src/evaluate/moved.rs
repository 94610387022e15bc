//! The `moved` fixes of findings: where the same object is in the releases that lack the
//! path used.

use super::*;

impl<'c> Evaluator<'c> {
    /// Adds the `moved` fixes to findings: where the same object is in the releases that lack
    /// the path used. The candidates are the paths with the same last segment, from the
    /// package's table of paths by last segment ([`PackageView::paths_named`], stored with
    /// the index).
    pub fn add_moved(&self, pending: &mut [(&'c PackageView, Pending)]) {
        pending.par_iter_mut().for_each(|(view, p)| {
            let Some(q) = p.moved.take() else {
                return;
            };
            let candidates = view.paths_named(last_segment(&q.path));
            let candidates: Vec<&str> = candidates.iter().map(String::as_str).collect();
            let fixes = self.moved(view, &q, &candidates);
            if !fixes.is_empty() {
                p.finding.fixes.splice(0..0, fixes);
            }
        });
    }

    fn moved(&self, view: &PackageView, q: &MovedQuery, candidates: &[&str]) -> Vec<Fix> {
        let path = q.path.as_str();
        let Lite::Present {
            canonical, kind, ..
        } = self.status(view, path, q.newest_present)
        else {
            return Vec::new();
        };
        // An object of the standard library the package imported (`torch.Dict`, which is
        // `typing.Dict`): other modules that import it too are no place to take it from
        // (study 54, M-1); its definition is.
        let root = canonical.split('.').next().unwrap_or(&canonical);
        let versions = view.versions();
        if root != path.split('.').next().unwrap_or(path) && crate::stdlib::is_stdlib(root) {
            return vec![Fix {
                kind: FixKind::Moved,
                message: format!(
                    "`{path}` is `{canonical}` of the standard library, which {} only imports: import it from `{}`",
                    view.name(),
                    canonical.rsplit_once('.').map_or(root, |(m, _)| m)
                ),
                replacement: None,
                releases: q.missing.iter().filter_map(|&r| versions.get(r).cloned()).collect(),
                requirement: None,
            }];
        }
        let name = last_segment(path);
        // Whether a definition is a member of a class (a method) rather than of a module.
        let in_class = |canonical: &str, r: usize| {
            canonical.rsplit_once('.').is_some_and(|(parent, _)| {
                matches!(
                    self.status(view, parent, r),
                    Lite::Present {
                        kind: Kind::Class,
                        ..
                    }
                )
            })
        };
        let ours_in_class = in_class(&canonical, q.newest_present);
        // (path, same object, releases)
        let mut groups: Vec<(String, bool, Vec<String>)> = Vec::new();
        for &r in &q.missing {
            // (tier, incidental, private segments, length): lowest wins.
            type Score = (u8, u8, usize, usize);
            let mut best: Option<(Score, &str)> = None;
            for &c in candidates {
                if c == path {
                    continue;
                }
                let Lite::Present {
                    canonical: their_canonical,
                    kind: their_kind,
                    ..
                } = self.status(view, c, r)
                else {
                    continue;
                };
                // Tier 0: the same object: the same canonical definition, or a path of the
                // package that defines it here and names the used object's definition where
                // the use works (the definition moved and the old place re-exports it, as
                // `diff` reports moves; a module that merely imports the name is no evidence). Tier 1: a different
                // class or function of the same name, defined at the same level (a method is
                // never offered for a module-level function, nor the reverse).
                let defined_here = c
                    .rsplit_once('.')
                    .is_some_and(|(m, _)| their_canonical.starts_with(&format!("{m}.")));
                let tier = if their_canonical == canonical
                    || (defined_here
                        && matches!(
                            self.status(view, c, q.newest_present),
                            Lite::Present { canonical: then, .. } if then == canonical
                        )) {
                    0
                } else if their_kind == kind
                    && matches!(their_kind, Kind::Class | Kind::Function)
                    && last_segment(&their_canonical) == name
                    && in_class(&their_canonical, r) == ours_in_class
                {
                    1
                } else {
                    continue;
                };
                // A module that merely imported the object for its own use is a poor place to
                // import it from: prefer the packages the definition lies in.
                let incidental = c
                    .rsplit_once('.')
                    .is_none_or(|(m, _)| !their_canonical.starts_with(&format!("{m}.")));
                let private = c.split('.').filter(|s| s.starts_with('_')).count();
                let score = (tier, u8::from(incidental), private, c.len());
                if best.as_ref().is_none_or(|(s, _)| score < *s) {
                    best = Some((score, c));
                }
            }
            if let (Some(((tier, ..), c)), Some(v)) = (best, versions.get(r)) {
                let same = tier == 0;
                match groups.iter_mut().find(|(g, s, _)| g == c && *s == same) {
                    Some((_, _, rs)) => rs.push(v.clone()),
                    None => groups.push((c.to_string(), same, vec![v.clone()])),
                }
            }
        }
        let what = match kind {
            Kind::Class => "class",
            _ => "function",
        };
        groups
            .into_iter()
            .map(|(c, same, rs)| {
                let releases = if rs.len() <= 3 {
                    rs.join(", ")
                } else {
                    format!("{} - {}", rs[0], rs[rs.len() - 1])
                };
                let message = if same {
                    format!("in {} {releases} the same object is `{c}`", view.name())
                } else {
                    format!(
                        "in {} {releases} a different {what} of the same name is `{c}` (not the same object: check that it does what the code expects)",
                        view.name()
                    )
                };
                Fix {
                    kind: FixKind::Moved,
                    message,
                    // Only the same object is a replacement an edit may make.
                    replacement: same.then_some(c),
                    releases: rs,
                    requirement: None,
                }
            })
            .collect()
    }
}
