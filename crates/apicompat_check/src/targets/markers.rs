//! The releases declarations under environment markers admit: read on each platform and
//! Python, with the platforms each release has wheels for.

use apicompat_requirements::{select, DeclaredRequirement, Version};

/// The releases among `all` that the declarations `reqs` admit in some environment: pip
/// intersects the declarations that apply, so those without a marker hold everywhere and
/// those with a marker only where it holds. Declarations under different markers
/// (`torch==2.10.0 ; sys_platform == 'darwin'`, `torch==2.10.0+cu128 ; sys_platform ==
/// 'linux'`) are alternatives: the union, over the platforms and Pythons of
/// [`apicompat_requirements::training_environments`], of what the declarations that hold there admit together, and of
/// those releases, the ones with wheels there (`platforms[i]`: the platforms `all[i]` has
/// wheels for, empty when it installs anywhere; `torch<2.9.1 ; sys_platform == 'darwin' and
/// platform_machine == 'x86_64'` admits 2.0.0 - 2.2.2 only: later releases have no wheel for
/// macOS on x86_64). Where that leaves nothing, the releases without regard to wheels.
pub fn admitted_by(
    reqs: &[&DeclaredRequirement],
    all: &[Version],
    platforms: &[&[String]],
) -> Vec<Version> {
    let within = |admitted: &mut Vec<Version>, r: &DeclaredRequirement| {
        let picked = select(&r.specifier, all);
        admitted.retain(|v| picked.contains(v));
    };
    let mut base: Vec<Version> = all.to_vec();
    for r in reqs.iter().filter(|r| r.marker.is_none()) {
        within(&mut base, r);
    }
    let marked: Vec<&DeclaredRequirement> = reqs
        .iter()
        .copied()
        .filter(|r| r.marker.is_some())
        .collect();
    if marked.is_empty() {
        return base;
    }
    // The requirements that hold together somewhere: on each platform and Python, those whose
    // marker holds there (none: the unconditional ones alone, so `torch!=2.4.0; sys_platform
    // == 'win32'` beside `torch>=2.3` leaves 2.4.0 in on Linux), with the platform.
    // Where no declaration holds, none installs the package.
    let unconditional = marked.len() < reqs.len();
    let mut together: Vec<(Vec<usize>, Option<&str>)> = Vec::new();
    for (env, platform) in apicompat_requirements::training_environments() {
        let holding: Vec<usize> = (0..marked.len())
            .filter(|&i| marked[i].marker_tree.evaluate(env, &[]))
            .collect();
        let key = (holding, Some(*platform));
        if (unconditional || !key.0.is_empty()) && !together.contains(&key) {
            together.push(key);
        }
    }
    // Declarations for other platforms only (`; sys_platform == 'win32'`): each marker is
    // an alternative of its own.
    if together.is_empty() {
        for m in 0..marked.len() {
            let same: Vec<usize> = (0..marked.len())
                .filter(|&i| marked[i].marker == marked[m].marker)
                .collect();
            if !together.iter().any(|(h, _)| *h == same) {
                together.push((same, None));
            }
        }
    }
    let installs_on = |v: &Version, platform: &str| {
        all.iter()
            .position(|w| w == v)
            .and_then(|i| platforms.get(i))
            .is_none_or(|p| p.is_empty() || p.iter().any(|x| x == platform))
    };
    let (mut union, mut with_wheels): (Vec<Version>, Vec<Version>) = (Vec::new(), Vec::new());
    for (holding, platform) in together {
        let mut admitted = base.clone();
        for &i in &holding {
            within(&mut admitted, marked[i]);
        }
        with_wheels.extend(
            admitted
                .iter()
                .filter(|v| platform.is_none_or(|p| installs_on(v, p)))
                .cloned(),
        );
        union.extend(admitted);
    }
    let kept = if with_wheels.is_empty() {
        union
    } else {
        with_wheels
    };
    all.iter().filter(|v| kept.contains(v)).cloned().collect()
}
