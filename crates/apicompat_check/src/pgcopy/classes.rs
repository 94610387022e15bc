//! AC010's view of the project's classes and functions: which class or function a
//! reference names, its bases and `__init__`, the objects it builds and what they hold.

use super::*;

impl<'a> Engine<'a> {
    /// The project class or function a dotted reference names (`.model.MyModel`,
    /// `mypkg.model.MyModel`, `model.MyModel`), when exactly one matches.
    pub(super) fn project_ref(&self, path: &str, from: usize) -> Abs {
        let trimmed = path.trim_start_matches('.');
        let name = last_segment(trimmed);
        let hint: Vec<&str> = match trimmed.rsplit_once('.') {
            Some((module, _)) => module.split('.').collect(),
            None => Vec::new(),
        };
        let fits = |file: usize| {
            let m = &self.modules[file];
            hint.len() <= m.len()
                && m[m.len() - hint.len()..]
                    .iter()
                    .zip(&hint)
                    .all(|(a, b)| a == b)
        };
        {
            let cands = self.classes_named(name, &fits);
            if let Some(c) = choose(&cands, |c| c.0, from) {
                return Abs::Class(c);
            }
        }
        {
            let cands = self.functions_named(name, &fits);
            if let Some(f) = choose(&cands, |c| c.0, from) {
                return Abs::Func(f);
            }
        }
        {
            let cands = self.containers_named(name, &fits);
            if let Some((file, i)) = choose(&cands, |c| c.0, from) {
                let cx = Ctx {
                    file,
                    bindings: None,
                    this: None,
                };
                let val = &self.facts(file).containers[i].1;
                return self.eval(val, &cx, 0);
            }
        }
        Abs::Unknown
    }

    /// The project classes a class derives from, in order.
    pub(super) fn bases(&self, c: ClassRef) -> Vec<ClassRef> {
        let cx = Ctx {
            file: c.0,
            bindings: None,
            this: None,
        };
        self.class(c)
            .bases
            .iter()
            .filter_map(|b| match self.eval(b, &cx, MAX_EVAL_DEPTH - 4) {
                Abs::Class(b) if b != c => Some(b),
                _ => None,
            })
            .collect()
    }

    /// The `__init__` that runs when the class is called: its own or the first base's.
    pub(super) fn init_owner(&self, c: ClassRef, depth: usize) -> Option<FuncRef> {
        if depth > 16 {
            return None;
        }
        if let Some(id) = self.class(c).init {
            return Some((c.0, id));
        }
        self.bases(c)
            .into_iter()
            .find_map(|b| self.init_owner(b, depth + 1))
    }

    /// Whether the classes of an object define a hook that decides how it is copied.
    pub(super) fn handles(&self, c: ClassRef, kind: CopyKind, depth: usize) -> bool {
        if depth > 16 {
            return false;
        }
        let hooks: &[&str] = match kind {
            CopyKind::Deep => &[
                "__deepcopy__",
                "__getstate__",
                "__reduce__",
                "__reduce_ex__",
            ],
            CopyKind::Shallow => &["__copy__", "__getstate__", "__reduce__", "__reduce_ex__"],
            CopyKind::Pickle => &["__getstate__", "__reduce__", "__reduce_ex__"],
        };
        self.class(c)
            .hooks
            .iter()
            .any(|h| hooks.contains(&h.as_str()))
            || self
                .bases(c)
                .into_iter()
                .any(|b| self.handles(b, kind, depth + 1))
    }

    /// The classes of an object with the arguments their `__init__` ran with: the class itself,
    /// then the bases (bound through `super().__init__(...)` or the inherited `__init__`).
    pub(super) fn levels(&self, o: &Obj) -> Vec<(ClassRef, Option<Rc<Bindings>>)> {
        let mut out: Vec<(ClassRef, Option<Rc<Bindings>>)> = Vec::new();
        let mut queue: Vec<(ClassRef, Option<Rc<Bindings>>, usize)> =
            vec![(o.class, o.args.clone(), 0)];
        let this = Rc::new(o.clone());
        while let Some((c, args, depth)) = queue.pop() {
            if out.iter().any(|(x, _)| *x == c) || depth > 8 || out.len() > 32 {
                continue;
            }
            out.push((c, args.clone()));
            let class = self.class(c);
            let bases = self.bases(c);
            let mut bound: Vec<ClassRef> = Vec::new();
            match class.init {
                Some(id) => {
                    let own = args.as_ref().filter(|b| b.owner == (c.0, id)).cloned();
                    for si in class.supers.iter().filter(|s| s.func == id) {
                        let cx = Ctx {
                            file: c.0,
                            bindings: own.clone(),
                            this: Some(this.clone()),
                        };
                        let target = match &si.base {
                            Some(b) => match self.eval(b, &cx, 8) {
                                Abs::Class(b) => Some(b),
                                _ => None,
                            },
                            None => bases.first().copied(),
                        };
                        let Some(t) = target else {
                            continue;
                        };
                        let b = self
                            .init_owner(t, 0)
                            .map(|owner| Rc::new(self.bind(owner, &si.call, &cx, 8)));
                        bound.push(t);
                        queue.push((t, b, depth + 1));
                    }
                }
                None => {
                    if let Some(&first) = bases.first() {
                        bound.push(first);
                        queue.push((first, args.clone(), depth + 1));
                    }
                }
            }
            for b in bases {
                if !bound.contains(&b) {
                    queue.push((b, None, depth + 1));
                }
            }
        }
        out
    }

    /// What `o.name` is, from what the classes of `o` store under that name.
    pub(super) fn obj_attr(&self, o: &Rc<Obj>, name: &str, depth: usize) -> Option<Abs> {
        let mut found: Option<Abs> = None;
        for (c, args) in self.levels(o) {
            for s in self.class(c).stores.iter().filter(|s| s.attr == name) {
                let cx = Ctx {
                    file: c.0,
                    bindings: args.clone().filter(|b| b.owner == (c.0, s.func)),
                    this: Some(o.clone()),
                };
                let v = self.eval(&s.val, &cx, depth + 1);
                found = Some(match found {
                    None => v,
                    Some(prev) => best(prev, v),
                });
            }
        }
        found
    }

    /// The attributes of an object that hold a process group, through sub-objects.
    pub(super) fn holds(
        &self,
        o: &Rc<Obj>,
        kind: CopyKind,
        depth: usize,
        seen: &mut Vec<ClassRef>,
    ) -> Vec<Hold> {
        if depth > MAX_HOLD_DEPTH || seen.contains(&o.class) || self.handles(o.class, kind, 0) {
            return Vec::new();
        }
        seen.push(o.class);
        let mut out: Vec<Hold> = Vec::new();
        for (c, args) in self.levels(o) {
            for s in &self.class(c).stores {
                if out.iter().any(|h| h.attr == s.attr) {
                    continue;
                }
                let cx = Ctx {
                    file: c.0,
                    bindings: args.clone().filter(|b| b.owner == (c.0, s.func)),
                    this: Some(o.clone()),
                };
                let at = self.loc(c.0, s.range);
                let v = self.eval(&s.val, &cx, 0);
                for (attr, inner_at, origin) in self.groups_in(v, kind, depth, seen) {
                    let attr = match attr {
                        Some(a) => format!("{}.{a}", s.attr),
                        None => s.attr.to_string(),
                    };
                    let at = inner_at.unwrap_or_else(|| at.clone());
                    let origin = if attr == s.attr {
                        origin.with(String::new(), Some(s.attr))
                    } else {
                        origin
                    };
                    out.push(Hold { attr, at, origin });
                }
            }
        }
        seen.pop();
        out.sort_by_key(|h| !h.origin.reportable());
        out
    }

    /// The process groups a value holds (deep copies and pickles see them all): the attribute
    /// path below the value (`None` for the value itself) and the group's origin.
    pub(super) fn groups_in(
        &self,
        v: Abs,
        kind: CopyKind,
        depth: usize,
        seen: &mut Vec<ClassRef>,
    ) -> Vec<(Option<String>, Option<String>, Origin)> {
        match v {
            Abs::Pg(o) => vec![(None, None, o)],
            Abs::Obj(sub) => self
                .holds(&sub, kind, depth + 1, seen)
                .into_iter()
                .map(|h| (Some(h.attr), Some(h.at), h.origin))
                .collect(),
            Abs::Seq(items) if depth < MAX_HOLD_DEPTH => items
                .into_iter()
                .flat_map(|x| self.groups_in(x, kind, depth + 1, seen))
                .take(4)
                .collect(),
            Abs::Dict(entries) if depth < MAX_HOLD_DEPTH => entries
                .into_iter()
                .flat_map(|(_, x, _)| self.groups_in(x, kind, depth + 1, seen))
                .take(4)
                .collect(),
            Abs::Wrapped { origin, .. } => vec![(None, None, origin)],
            _ => Vec::new(),
        }
    }
}
