//! One Unicode version across every strict table: the versions the generated tables
//! carry (their constants and their "Generated ... for Unicode X" headers) are the ones
//! `scripts/unicode/versions.json` names, which `scripts/unicode/bump.sh` moves.

use serde_json::Value;

const VERSIONS: &str = include_str!("../../scripts/unicode/versions.json");
const STRICT_TABLES: &str = include_str!("../../core/src/strict/tables.rs");
const NAMES_TABLE: &str = include_str!("../../cli/src/names/table.rs");
const REFERENCE_TABLE: &str = include_str!("../../core/src/tables.rs");

fn version(key: &str) -> String {
    let v: Value = serde_json::from_str(VERSIONS).unwrap();
    v[key].as_str().unwrap().to_owned()
}

#[test]
fn every_strict_table_is_on_the_pinned_version() {
    let unicode = version("unicode");
    assert_eq!(airlock_core::strict::UNICODE_VERSION, unicode);
    // The strict profile's only other source of another version is confusables.txt,
    // which is at least as new (PROFILE-STRICT.md says why).
    let parts = |v: &str| {
        v.split('.')
            .map(|p| p.parse::<u32>().unwrap())
            .collect::<Vec<_>>()
    };
    assert!(parts(airlock_core::strict::CONFUSABLES_VERSION) >= parts(&unicode));
    let header = format!("for Unicode {unicode} from @unicode/unicode-{unicode}@");
    for (file, text) in [
        ("core/src/strict/tables.rs", STRICT_TABLES),
        ("cli/src/names/table.rs", NAMES_TABLE),
    ] {
        let first = text.lines().next().unwrap();
        assert!(first.contains(&header), "{file}: {first}");
        assert!(
            text.contains(&format!("UNICODE_VERSION: &str = \"{unicode}\";")),
            "{file}"
        );
    }
    assert!(STRICT_TABLES.contains(&format!("unicodedata2\n// {unicode} (PyPI)")));
    let major_minor = unicode.rsplit_once('.').unwrap().0;
    assert!(STRICT_TABLES.contains(&format!("dist/emoji-{major_minor} ")));
}

#[test]
fn the_reference_table_is_on_the_engine_version() {
    let reference = version("reference");
    assert_eq!(airlock_core::UNICODE_VERSION, reference);
    let first = REFERENCE_TABLE.lines().next().unwrap();
    assert!(
        first.contains(&format!("from @unicode/unicode-{reference}@")),
        "{first}"
    );
}
