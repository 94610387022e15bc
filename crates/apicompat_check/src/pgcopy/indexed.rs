//! What AC010 asks the index: the value of an indexed path, what an indexed call returns,
//! and whether an indexed class decides how its objects are copied.

use super::*;

impl<'a> Engine<'a> {
    /// The value of an indexed path read as an attribute (not called).
    pub(super) fn indexed_value(&self, path: &str, written: &str) -> Abs {
        match self.indexed_info(path) {
            IndexedInfo::Class(c) => Abs::Indexed {
                path: c,
                instance: false,
            },
            IndexedInfo::Callable {
                kind: Kind::Property,
                pg: Some(r),
                canonical,
                ..
            } => Abs::Pg(Origin::new(
                true,
                None,
                format!("`{written}` (the property `{canonical}` returns `{r}`)"),
            )),
            IndexedInfo::Callable { canonical, .. } => Abs::Indexed {
                path: canonical,
                instance: false,
            },
            IndexedInfo::Other | IndexedInfo::Missing => {
                match self.factory_named(last_segment(path), &[Kind::Property]) {
                    Some(f) => Abs::Pg(Origin::new(
                        true,
                        None,
                        format!("`{written}` (`{}` returns `{}`)", f.path, f.returns),
                    )),
                    None => Abs::Indexed {
                        path: path.to_string(),
                        instance: false,
                    },
                }
            }
        }
    }

    /// The indexed factory of a name, unless the project defines the name itself.
    /// A call of a function named `name` that the index says returns a process group
    /// (`new_group(...)`), wherever it comes from.
    pub(super) fn factory_call(&self, name: &str, written: &str, at: &str) -> Abs {
        match self.factory_named(name, &[Kind::Function]) {
            Some(f) => Abs::Pg(Origin::new(
                true,
                None,
                format!(
                    "`{written}()` ({at}), which returns `{}` (`{}`)",
                    f.returns, f.path
                ),
            )),
            None => Abs::Unknown,
        }
    }

    pub(super) fn factory_named(&self, name: &str, kinds: &[Kind]) -> Option<pgindex::Factory> {
        if self.defined.contains(name) {
            return None;
        }
        let (pg, views) = self.pg_tables();
        pg.factories_named(views, name, kinds)
    }

    pub(super) fn indexed_info(&self, path: &str) -> IndexedInfo {
        if let Some(i) = self.indexed.borrow().get(path) {
            return i.clone();
        }
        let info = self.lookup_indexed(path);
        self.indexed
            .borrow_mut()
            .insert(path.to_string(), info.clone());
        info
    }

    pub(super) fn lookup_indexed(&self, path: &str) -> IndexedInfo {
        let root = path.split('.').next().unwrap_or(path);
        let Some(view) = self.view(root) else {
            return IndexedInfo::Missing;
        };
        let mut info = IndexedInfo::Missing;
        for r in (0..view.releases().len()).rev() {
            let Ok(Status::Present {
                path: found,
                symbol,
            }) = view.status(path, r)
            else {
                continue;
            };
            let canonical = symbol.canonical.clone().unwrap_or(found);
            match symbol.kind() {
                Kind::Class => return IndexedInfo::Class(canonical),
                kind @ (Kind::Function | Kind::Property) => {
                    let (mut pg, mut returns) =
                        match std::mem::replace(&mut info, IndexedInfo::Other) {
                            IndexedInfo::Callable { pg, returns, .. } => (pg, returns),
                            _ => (None, Vec::new()),
                        };
                    for ret in symbol
                        .signatures
                        .iter()
                        .filter_map(|s| s.returns.as_deref())
                    {
                        if pgindex::mentions(ret, &self.pg().types) {
                            pg.get_or_insert_with(|| ret.to_string());
                        } else if !returns.iter().any(|x| x == ret) {
                            returns.push(ret.to_string());
                        }
                    }
                    info = IndexedInfo::Callable {
                        canonical,
                        kind,
                        pg,
                        returns,
                    };
                }
                _ => {
                    if matches!(info, IndexedInfo::Missing) {
                        info = IndexedInfo::Other;
                    }
                }
            }
        }
        info
    }

    /// What calling an indexed function or class gives.
    pub(super) fn indexed_call(&self, path: &str, written: &str, at: &str) -> Abs {
        match self.indexed_info(path) {
            IndexedInfo::Class(c) => Abs::Indexed {
                path: c,
                instance: true,
            },
            IndexedInfo::Callable {
                pg: Some(r),
                canonical,
                ..
            } => {
                let step = |what: &str| {
                    format!("`{written}()` ({at}){what}, which returns `{r}` (`{canonical}`)")
                };
                match pgindex::tuple_items(&r) {
                    Some(items) => Abs::Seq(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| {
                                if pgindex::mentions(item, &self.pg().types) {
                                    Abs::Pg(Origin::new(
                                        true,
                                        None,
                                        step(&format!(", item {i} of the result")),
                                    ))
                                } else {
                                    Abs::Unknown
                                }
                            })
                            .collect(),
                    ),
                    None => Abs::Pg(Origin::new(true, None, step(""))),
                }
            }
            IndexedInfo::Callable {
                canonical, returns, ..
            } => match self.returned_class(&canonical, &returns) {
                Some(c) => Abs::Indexed {
                    path: c,
                    instance: true,
                },
                None => Abs::Unknown,
            },
            IndexedInfo::Other | IndexedInfo::Missing => {
                self.factory_call(last_segment(path), written, at)
            }
        }
    }

    /// The indexed class a function's return annotation names (`-> DeviceMesh`), looked up
    /// beside the function.
    pub(super) fn returned_class(&self, canonical: &str, returns: &[String]) -> Option<String> {
        let ret = returns.first()?;
        let ids: Vec<&str> = ret
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .filter(|s| !s.is_empty() && !matches!(*s, "Optional" | "None"))
            .collect();
        let [name] = ids.as_slice() else {
            return None;
        };
        let mut module = canonical;
        while let Some((parent, _)) = module.rsplit_once('.') {
            module = parent;
            if let IndexedInfo::Class(c) = self.indexed_info(&format!("{module}.{name}")) {
                return Some(c);
            }
        }
        None
    }

    /// Whether an indexed class itself defines a hook that decides how its objects are copied
    /// or pickled (`DistributedDataParallel.__getstate__` leaves its group out). Hooks of
    /// generic bases (`nn.Module.__getstate__` returns the whole `__dict__`) say nothing
    /// about the group, so only the class's own count.
    pub(super) fn indexed_hooks(&self, class: &str) -> bool {
        let root = class.split('.').next().unwrap_or(class);
        let Some(view) = self.view(root) else {
            return true;
        };
        [
            "__deepcopy__",
            "__getstate__",
            "__reduce__",
            "__reduce_ex__",
        ]
        .iter()
        .any(|hook| {
            let path = format!("{class}.{hook}");
            (0..view.releases().len()).any(|r| {
                view.index_of(r)
                    .is_some_and(|(index, pos)| matches!(index.facet_in(&path, pos), Ok(Some(_))))
            })
        })
    }
}
