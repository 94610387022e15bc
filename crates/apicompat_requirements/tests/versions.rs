use apicompat_requirements::{
    admits, admits_with, local_label, parse_specifiers, parse_version, release_of, satisfies,
    select, Version,
};

fn v(s: &str) -> Version {
    parse_version(s).expect("test version parses")
}

fn vs(list: &[&str]) -> Vec<Version> {
    list.iter().map(|s| v(s)).collect()
}

fn spec(s: &str) -> apicompat_requirements::VersionSpecifiers {
    parse_specifiers(s).expect("test specifier parses")
}

#[test]
fn parses_torch_style_versions() {
    let local = v("2.1.2+cu121");
    assert_eq!(local.release(), &[2, 1, 2]);
    assert_eq!(local_label(&local).as_deref(), Some("cu121"));
    assert_eq!(release_of(&local), v("2.1.2"));
    assert_eq!(release_of(&local).to_string(), "2.1.2");

    let nightly = v("2.5.0.dev20240617");
    assert_eq!(nightly.dev(), Some(20240617));
    assert!(nightly.any_prerelease());
    assert_eq!(local_label(&nightly), None);

    let rc = v("2.4.0rc1");
    assert!(rc.is_pre());
    assert_eq!(rc.to_string(), "2.4.0rc1");
    assert!(v("2.4.0rc1") < v("2.4.0"));
    assert!(v("2.5.0.dev20240617") < v("2.5.0"));

    assert!(parse_version("not a version").is_err());
    assert!(parse_specifiers(">=>2").is_err());
}

#[test]
fn prerelease_rule() {
    // Pre-releases and dev releases are excluded unless the specifier mentions one.
    assert!(!admits(&spec(">=2.3"), &v("2.4.0rc1")));
    assert!(!admits(&spec(">=2.3"), &v("2.5.0.dev20240617")));
    assert!(!admits(&spec(""), &v("2.4.0rc1")));
    assert!(admits(&spec(">=2.4.0rc1"), &v("2.4.0rc1")));
    assert!(admits(&spec(">=2.4.0rc1"), &v("2.5.0.dev20240617")));
    assert!(admits(&spec(">=2.5.0.dev0"), &v("2.5.0.dev20240617")));
    assert!(admits(&spec("==2.4.0rc1"), &v("2.4.0rc1")));
    // `!=` naming a pre-release does not open the door.
    assert!(!admits(&spec("!=2.4.0rc1"), &v("2.4.0rc2")));
    // Installed pre-releases may be accepted explicitly.
    assert!(admits_with(&spec(">=2.3"), &v("2.4.0rc1"), true));
    assert!(!admits_with(&spec(">=2.5"), &v("2.4.0rc1"), true));
    // Final releases.
    assert!(admits(&spec(">=2.3"), &v("2.3.0")));
    assert!(!admits(&spec(">=2.3"), &v("2.2.2")));
    assert!(admits(&spec(""), &v("0.1")));
}

#[test]
fn local_labels_are_judged_by_their_release() {
    assert!(admits(&spec("==2.1.2"), &v("2.1.2+cu121")));
    assert!(admits(&spec(">=2.1,<2.2"), &v("2.1.2+cu121")));
    assert!(!admits(&spec(">=2.2"), &v("2.1.2+cu121")));
    assert!(admits(&spec("==2.1.2+cu121"), &v("2.1.2+cu121")));
    assert!(!admits(&spec("==2.1.2+cu118"), &v("2.1.2+cu121")));
    assert!(admits(&spec("<=2.1.2"), &v("2.1.2+cu121")));
}

#[test]
fn wildcards_and_compatible_release() {
    assert!(admits(&spec("==2.1.*"), &v("2.1.0")));
    assert!(admits(&spec("==2.1.*"), &v("2.1.5")));
    assert!(!admits(&spec("==2.1.*"), &v("2.2.0")));
    // The release is padded with zeros: `2` is `2.0`, not in 2.1.*.
    assert!(!admits(&spec("==2.1.*"), &v("2")));
    assert!(admits(&spec("==2.0.*"), &v("2")));
    assert!(!admits(&spec("!=2.1.*"), &v("2.1.3")));
    assert!(admits(&spec("!=2.1.*"), &v("2")));
    assert!(admits(&spec("~=2.3"), &v("2.9.1")));
    assert!(!admits(&spec("~=2.3"), &v("3.0")));
    assert!(admits(&spec("~=2.3.1"), &v("2.3.4")));
    assert!(!admits(&spec("~=2.3.1"), &v("2.4.0")));
}

#[test]
fn select_applies_the_rule_to_a_release_list() {
    let releases = vs(&[
        "2.2.2",
        "2.3.0",
        "2.3.1",
        "2.4.0rc1",
        "2.4.0",
        "2.4.1+cu121",
        "2.5.0.dev20240617",
        "2.5.1",
        "2.6.0",
    ]);
    assert_eq!(
        select(&spec(">=2.3.0,<2.6"), &releases),
        vs(&["2.3.0", "2.3.1", "2.4.0", "2.4.1+cu121", "2.5.1"])
    );
    assert_eq!(select(&spec(">=2.7"), &releases), Vec::<Version>::new());
    assert_eq!(
        select(&spec(">=2.4.0rc1,<2.4.1"), &releases),
        vs(&["2.4.0rc1", "2.4.0"])
    );
    // Only pre-releases satisfy: PEP 440 admits them then.
    let only_pre = vs(&["2.5.0", "2.6.0rc1", "2.6.0rc2"]);
    assert_eq!(
        select(&spec(">2.5"), &only_pre),
        vs(&["2.6.0rc1", "2.6.0rc2"])
    );
    assert_eq!(select(&spec(""), &only_pre), vs(&["2.5.0"]));
}

#[test]
fn a_pin_of_a_local_build_admits_its_release() {
    let releases: Vec<Version> = ["2.9.1", "2.10.0", "2.11.0"]
        .iter()
        .map(|v| parse_version(v).unwrap())
        .collect();
    assert_eq!(
        select(&spec("==2.10.0+cu128"), &releases),
        [releases[1].clone()]
    );
    // The build itself, and not another build of the release, as PEP 440 says.
    assert!(satisfies(
        &spec("==2.10.0+cu128"),
        &parse_version("2.10.0+cu128").unwrap()
    ));
    assert!(!satisfies(
        &spec("==2.10.0+cu128"),
        &parse_version("2.10.0+cu130").unwrap()
    ));
    assert_eq!(select(&spec("!=2.10.0+cu128"), &releases).len(), 3);
}
