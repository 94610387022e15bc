//! The walker's scopes: what a name is bound to where it is read, and binding it.

use super::*;

impl<'a> Walker<'a> {
    /// What `name` is bound to here (of an [`Bound::Either`], the arm a lookup sees).
    pub(super) fn lookup(&self, name: &str) -> Option<&Bound> {
        self.agreeing(self.lookup_raw(name)?)
    }

    pub(super) fn lookup_raw(&self, name: &str) -> Option<&Bound> {
        self.read_scope(name, |s| s.names.get(name))
    }

    /// The scope whose binding of `name` a read here sees.
    pub(super) fn scope_of(&self, name: &str) -> Option<&Scope> {
        self.read_scope(name, |s| s.names.contains_key(name).then_some(s))
    }

    /// `found` of the first scope a read of `name` here looks in that answers; none past a
    /// scope where it is local.
    pub(super) fn read_scope<'s, T>(
        &'s self,
        name: &str,
        found: impl Fn(&'s Scope) -> Option<T>,
    ) -> Option<T> {
        let innermost = self.scopes.len().saturating_sub(1);
        for (i, scope) in self.scopes.iter().enumerate().rev() {
            if scope.globals.contains(name) {
                return found(self.scopes.first()?).filter(|_| !self.sees_rebinding(name));
            }
            if scope.kind == ScopeKind::Class && i != innermost {
                continue;
            }
            if let Some(x) = found(scope) {
                return (i > 0 || !self.sees_rebinding(name)).then_some(x);
            }
            if scope.locals.contains(name) {
                return None;
            }
        }
        None
    }

    /// Whether a read of `name` here sees a local variable of an enclosing function (a
    /// parameter or a name its body assigns) that the walk did not bind to anything it knows.
    pub(super) fn is_unknown_local(&self, name: &str) -> bool {
        let innermost = self.scopes.len().saturating_sub(1);
        for (i, scope) in self.scopes.iter().enumerate().rev() {
            if scope.globals.contains(name) || scope.kind == ScopeKind::Module {
                return false;
            }
            if scope.kind == ScopeKind::Class && i != innermost {
                continue;
            }
            if scope.names.contains_key(name) {
                return false;
            }
            if scope.locals.contains(name) {
                return true;
            }
        }
        false
    }

    /// The scope a name is bound in.
    pub(super) fn binding_scope(&mut self, name: &str) -> Option<&mut Scope> {
        let i = self.binding_scope_index(name)?;
        self.scopes.get_mut(i)
    }

    pub(super) fn binding_scope_index(&self, name: &str) -> Option<usize> {
        let i = self
            .scopes
            .iter()
            .rposition(|s| s.kind != ScopeKind::Comprehension)?;
        Some(if self.scopes[i].globals.contains(name) {
            0
        } else {
            i
        })
    }

    /// Whether a function body's read of the module-level `name` may see a binding other
    /// than the module's last: the name held another path, or a value that is no path,
    /// somewhere between the function's definition and the end of the module (a call at
    /// import time runs it in between). What it holds is then not known.
    fn sees_rebinding(&self, name: &str) -> bool {
        match (self.ctx.defined_at, self.rebound_at.get(name)) {
            (Some(defined), Some(rebound)) => *rebound > defined,
            _ => false,
        }
    }

    /// Records what a statement of the module itself binds `name` to (`path`: `None` for a
    /// value that is no path), and where it comes to hold something else than before.
    fn note_module_value(&mut self, name: &str, path: Option<&str>) {
        if self.scopes.len() != 1 || self.ctx.in_function {
            return;
        }
        let old = self
            .module_values
            .insert(name.to_string(), path.map(str::to_string));
        if old.is_some_and(|old| old.as_deref() != path) {
            self.rebound_at.insert(name.to_string(), self.stmt_start);
        }
    }

    pub(super) fn bind(&mut self, name: &str, bound: Bound) {
        let Some(i) = self.rebinding_scope(name) else {
            return;
        };
        let path = match &bound {
            Bound::Path { path, .. } => Some(path.as_str()),
            _ => None,
        };
        self.note_module_value(name, path);
        let new = arms::Kind::of(Some(&bound));
        let old = self.scopes[i].insert(name, bound);
        if !self.if_frames.is_empty() {
            self.note_rebinding(i, name, old.as_ref(), new);
        }
    }

    /// A store that is not an import.
    pub(super) fn store(&mut self, name: &str) {
        let handler = self.ctx.handler;
        // Comprehension targets live in the comprehension's own scope.
        if let Some(scope) = self.scopes.last_mut() {
            if scope.kind == ScopeKind::Comprehension && scope.locals.contains(name) {
                scope.names.remove(name);
                return;
            }
        }
        let Some(i) = self.rebinding_scope(name) else {
            return;
        };
        let old = match self.scopes[i].names.get_mut(name) {
            // `except ImportError: X = None` keeps what the try imported.
            Some(Bound::Path { guarded, .. }) if handler => {
                *guarded = true;
                None
            }
            _ => {
                self.note_module_value(name, None);
                self.scopes[i].names.remove(name)
            }
        };
        if old.is_some() && !self.if_frames.is_empty() {
            self.note_rebinding(i, name, old.as_ref(), arms::Kind::Unbound);
        }
    }

    /// The scope `name` is bound in, once what depends on its old value there is forgotten
    /// (facts of cleared flags, tests that read it).
    fn rebinding_scope(&mut self, name: &str) -> Option<usize> {
        let i = self.binding_scope_index(name)?;
        let mut tick = self.tick;
        let scope = &mut self.scopes[i];
        scope.forget_truths(name);
        scope.facts.forget(name, &mut tick);
        self.tick = tick;
        Some(i)
    }

    /// A binding for a path, carrying the guards and conditions of where it is made.
    pub(super) fn path_binding(&self, path: String, base: Option<&Bound>) -> Bound {
        let (mut guarded, mut versions, mut requires) = match base {
            Some(Bound::Path {
                guarded,
                versions,
                requires,
                ..
            }) => (*guarded, versions.clone(), requires.clone()),
            _ => (false, Vec::new(), Vec::new()),
        };
        guarded |= self.ctx.try_guard || self.has_guard(&path);
        versions.extend(self.ctx.versions.iter().cloned());
        for t in &self.ctx.requires {
            if !requires.contains(t) {
                requires.push(t.clone());
            }
        }
        Bound::Path {
            path,
            guarded,
            versions,
            requires,
        }
    }

    pub(super) fn has_guard(&self, path: &str) -> bool {
        self.ctx.has.iter().any(|h| {
            path == h
                || path
                    .strip_prefix(h.as_str())
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    }
}
