//! Packages that add names to another package when they are imported: the device plugins of
//! torch (`import torch_npu` gives `torch.npu`, `torch.version.cann`,
//! `torch.distributed.is_hccl_available`; Intel's extension gives `torch.xpu.*` on releases
//! that lack them) and numpy's quaternion dtype (`import quaternion` gives `np.quaternion`).
//! None of them is indexed, so what they add is not known name by name.
//!
//! The rule: in a project that imports such a plugin (anywhere), a path the plugin is known to
//! add (its device module and what is under it, the names it sets, read from its sources) that
//! **no indexed release of the host has** may be the plugin's, and is not an error; it is reported
//! as guarded (`--show-guarded`), naming the import. A name some release of the host has is
//! judged as usual: a plugin does not bring back what a release of the host dropped. This is a
//! rule that must know packages by name (what a plugin patches is in its own code, which the
//! index does not hold); the list is kept short, to plugins documented to patch their host.

/// (top-level module of the plugin, the paths of its host it adds: the device modules it
/// registers, with what is under them, and the names it sets elsewhere).
const PLUGINS: &[(&str, &[&str])] = &[
    // Huawei Ascend (torch_npu 2.12.0: `_init/registry/backend.py:9` registers `torch.npu`,
    // `utils/collect_env.py:217` sets `torch.version.cann`, `_init/patches/
    // distributed_patches.py:52-57` adds `is_hccl_available` and `reinit_process_group`,
    // `_init/registry/distributed.py:37` registers the `hccl` backend: `Backend.HCCL`).
    (
        "torch_npu",
        &[
            "torch.npu",
            "torch.version.cann",
            "torch.distributed.is_hccl_available",
            "torch.distributed.reinit_process_group",
            "torch.distributed.Backend.HCCL",
            "torch.distributed.distributed_c10d.Backend.HCCL",
            "torch.Tensor.npu",
            "torch.nn.Module.npu",
        ],
    ),
    // Intel Extension for PyTorch: `torch.xpu.*` before torch had its own.
    ("intel_extension_for_pytorch", &["torch.xpu"]),
    // Intel Gaudi: `torch.hpu` and its `hccl` backend.
    (
        "habana_frameworks",
        &[
            "torch.hpu",
            "torch.distributed.Backend.HCCL",
            "torch.distributed.distributed_c10d.Backend.HCCL",
        ],
    ),
    // Cambricon MLU: the device module.
    ("torch_mlu", &["torch.mlu"]),
    // Moore Threads MUSA: the device module, and `torch.version.musa` (torch_musa 8b583b3,
    // `torch_musa/__init__.py:140`: `setattr(torch.version, "musa", ...)`).
    ("torch_musa", &["torch.musa", "torch.version.musa"]),
    // numpy-quaternion registers `np.quaternion`.
    ("quaternion", &["numpy.quaternion"]),
];

/// The plugins a project imports.
#[derive(Default)]
pub struct Plugins {
    /// Path prefix -> `` `import torch_npu` (npu/utils.py:12) may add it``, the first import
    /// seen.
    by_prefix: Vec<(&'static str, String)>,
}

impl Plugins {
    /// From the project's imports of modules outside the indexed packages: (module, where
    /// as shown).
    pub fn new<'a>(imports: impl IntoIterator<Item = (&'a str, String)>) -> Plugins {
        let mut by_prefix: Vec<(&'static str, String)> = Vec::new();
        for (module, at) in imports {
            let top = module.split('.').next().unwrap_or(module);
            let Some(&(plugin, prefixes)) = PLUGINS.iter().find(|(p, _)| *p == top) else {
                continue;
            };
            for &prefix in prefixes {
                if !by_prefix.iter().any(|(p, _)| *p == prefix) {
                    by_prefix.push((prefix, format!("`import {plugin}` ({at}) may add it")));
                }
            }
        }
        Plugins { by_prefix }
    }

    /// The plugin a test of `tested` stands for when it adds both `tested` and `path`:
    /// `if is_torch_npu_available():` holds only where `torch.npu` exists, which only
    /// `import torch_npu` gives (no indexed torch has it, [`crate::evaluate`] checks), so
    /// `torch.version.cann`, which the plugin sets too, is there as well (study 28, F-D).
    pub fn imported_where(tested: &str, path: &str) -> Option<&'static str> {
        let under = |p: &str, prefix: &str| {
            p.strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        };
        PLUGINS
            .iter()
            .find(|(_, prefixes)| {
                prefixes.iter().any(|p| under(tested, p)) && prefixes.iter().any(|p| under(path, p))
            })
            .map(|(plugin, _)| *plugin)
    }

    /// Where a plugin that may add `path` is imported, as shown.
    pub fn note(&self, path: &str) -> Option<&str> {
        self.by_prefix
            .iter()
            .find(|(prefix, _)| {
                path.strip_prefix(prefix)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
            })
            .map(|(_, note)| note.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plugin_covers_what_it_registers_and_names_the_first_import() {
        let p = Plugins::new([
            ("torch_npu.contrib", "a.py:3".to_string()),
            ("torch_npu", "b.py:9".to_string()),
            ("wandb", "c.py:1".to_string()),
        ]);
        let note = Some("`import torch_npu` (a.py:3) may add it");
        assert_eq!(p.note("torch.version.cann"), note);
        assert_eq!(
            p.note("torch.distributed.distributed_c10d.Backend.HCCL"),
            note
        );
        assert_eq!(p.note("torch.npu"), note);
        assert_eq!(p.note("torch.npu.synchronize"), note);
        // Other names of `torch.distributed` are not the plugin's.
        assert_eq!(p.note("torch.distributed.fetch"), None);
        // Not what it registers, nor a longer name that shares the prefix.
        assert_eq!(p.note("torch.functional.one_hot"), None);
        assert_eq!(p.note("torch.npux"), None);
        assert_eq!(p.note("numpy.quaternion"), None);
        assert_eq!(Plugins::default().note("torch.npu"), None);
    }

    /// xDiT's `get_device_version` (`docs/false-alarm-study-50.md`, F-3): `torch.version.musa`
    /// under a test of `torch.musa` is torch_musa's, which sets both.
    #[test]
    fn a_test_of_a_device_module_stands_for_its_plugin() {
        let cases = [
            ("torch.musa", "torch.version.musa", Some("torch_musa")),
            (
                "torch.musa.is_available",
                "torch.musa.x",
                Some("torch_musa"),
            ),
            ("torch.mlu", "torch.version.musa", None),
            ("torch.cuda", "torch.version.musa", None),
        ];
        for (tested, path, plugin) in cases {
            assert_eq!(
                Plugins::imported_where(tested, path),
                plugin,
                "{tested} {path}"
            );
        }
    }
}
